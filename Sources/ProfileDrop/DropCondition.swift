import Foundation

/// When a phone's measurement of its peer counts as a profile drop: close enough and, if measured, pointed at it.
///
/// Direction follows Apple's `NINearbyObject.direction` convention: a unit vector from this phone toward the
/// peer where, as the user looks at the screen, x grows to the right, y grows upward and z grows *toward* the
/// user, so "straight out of the top/back of the phone, away from the user" is (0, 0, -1). The angle is
/// measured against that forward axis. Phones that measure no direction report none and distance alone decides.
public struct DropCondition: Sendable, Equatable {
    /// The phone's forward axis in Nearby Interaction coordinates: away from the user, (0, 0, -1).
    public static let forwardAxis = SIMD3<Double>(0, 0, -1)
    /// Slack added to `maxAngleDegrees` so a vector built at exactly the limit is not lost to rounding.
    public static let angleToleranceDegrees = 1e-9

    /// The largest distance that counts, in meters (inclusive).
    public var maxDistanceMeters: Double
    /// The largest angle between the direction and the forward axis that counts, in degrees (inclusive).
    public var maxAngleDegrees: Double
    /// How long a one-sided report waits for the peer's report.
    public var window: Duration

    /// The defaults (docs/ARCHITECTURE.md, "The drop path"): 0.3 m, 30°, 10 s.
    public static let `default` = DropCondition()

    /// Creates a condition; every argument has the §5 default.
    public init(maxDistanceMeters: Double = 0.3, maxAngleDegrees: Double = 30, window: Duration = .seconds(10)) {
        self.maxDistanceMeters = maxDistanceMeters
        self.maxAngleDegrees = maxAngleDegrees
        self.window = window
    }

    /// Judges one measurement: invalid input first, then distance, then (when given) direction.
    public func evaluate(distance: Double, direction: SIMD3<Double>?) -> ConditionResult {
        guard distance.isFinite, distance >= 0 else { return .invalid(.distance(distance)) }
        var angle: Double?
        if let direction {
            guard let degrees = Self.angleDegrees(from: direction) else { return .invalid(.direction) }
            angle = degrees
        }
        guard distance <= maxDistanceMeters else {
            return .notMet(.tooFar(meters: distance, max: maxDistanceMeters))
        }
        if let angle, angle > maxAngleDegrees + Self.angleToleranceDegrees {
            return .notMet(.offAxis(degrees: angle, max: maxAngleDegrees))
        }
        return .met
    }

    /// The angle in degrees between `direction` and `forwardAxis`, or nil if the vector is not finite or has no length.
    public static func angleDegrees(from direction: SIMD3<Double>) -> Double? {
        guard direction.x.isFinite, direction.y.isFinite, direction.z.isFinite else { return nil }
        // Scaled by its largest component first, so neither 1e300 nor 1e-320 over- or underflows the length.
        let largest = max(abs(direction.x), abs(direction.y), abs(direction.z))
        guard largest > 0 else { return nil }
        let unit = direction / largest
        let length = (unit * unit).sum().squareRoot()
        let cosine = min(1, max(-1, (unit * forwardAxis).sum() / length))
        return acos(cosine) * 180 / Double.pi
    }
}
