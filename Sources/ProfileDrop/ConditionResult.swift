/// The verdict of `DropCondition.evaluate`.
public enum ConditionResult: Sendable, Equatable {
    /// Close enough and, if a direction was given, pointed at the peer.
    case met
    /// A valid measurement outside the condition.
    case notMet(DropConditionFailure)
    /// A measurement that cannot be judged.
    case invalid(DropInputError)
}

/// Why a valid measurement is outside the drop condition.
public enum DropConditionFailure: Sendable, Equatable, CustomStringConvertible {
    /// The peer is farther than the limit.
    case tooFar(meters: Double, max: Double)
    /// The peer is further off the forward axis than the limit.
    case offAxis(degrees: Double, max: Double)

    /// A short explanation, e.g. for a 422 body.
    public var description: String {
        switch self {
        case .tooFar(let meters, let max): return "distance \(meters) m is more than \(max) m"
        case .offAxis(let degrees, let max): return "direction is \(degrees)° off the forward axis, more than \(max)°"
        }
    }
}

/// A measurement that cannot be judged at all.
public enum DropInputError: Sendable, Equatable, CustomStringConvertible {
    /// The distance is NaN, infinite or negative.
    case distance(Double)
    /// The direction has a NaN or infinite component, or zero length.
    case direction

    /// A short explanation, e.g. for a 400 body.
    public var description: String {
        switch self {
        case .distance(let value): return "distance must be a finite number ≥ 0, got \(value)"
        case .direction: return "direction must be a finite, non-zero vector"
        }
    }
}
