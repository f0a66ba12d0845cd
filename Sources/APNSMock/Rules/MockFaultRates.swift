import APNSCore

/// Probabilities (0...1) of answering an otherwise accepted notification with a transient failure.
///
/// One roll per notification from the server's seeded generator: below `tooManyRequests` gives 429,
/// the next `internalServerError` gives 500, the next `serviceUnavailable` gives 503 (sum at most 1).
public struct MockFaultRates: Sendable, Hashable {
    /// Chance of 429 TooManyRequests.
    public var tooManyRequests: Double
    /// Chance of 500 InternalServerError.
    public var internalServerError: Double
    /// Chance of 503 ServiceUnavailable.
    public var serviceUnavailable: Double

    /// Rates as given; all zero by default.
    public init(tooManyRequests: Double = 0, internalServerError: Double = 0, serviceUnavailable: Double = 0) {
        self.tooManyRequests = tooManyRequests
        self.internalServerError = internalServerError
        self.serviceUnavailable = serviceUnavailable
    }

    /// No faults.
    public static let none = MockFaultRates()

    /// True when no fault can happen (no roll is drawn then).
    var isZero: Bool {
        tooManyRequests <= 0 && internalServerError <= 0 && serviceUnavailable <= 0
    }

    /// The fault for a roll in `0..<1`, or nil.
    func reason(forRoll roll: Double) -> APNSRejectionReason? {
        var bound = tooManyRequests
        if roll < bound { return .tooManyRequests }
        bound += internalServerError
        if roll < bound { return .internalServerError }
        bound += serviceUnavailable
        if roll < bound { return .serviceUnavailable }
        return nil
    }
}
