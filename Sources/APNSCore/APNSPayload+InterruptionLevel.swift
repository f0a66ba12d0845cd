extension APNSPayload {
    /// `aps.interruption-level`: how strongly the notification may interrupt.
    public struct InterruptionLevel: Hashable, Sendable, RawRepresentable {
        /// The JSON value, e.g. `time-sensitive`.
        public let rawValue: String

        /// Wraps any value, known or not.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Added to the list silently; no sound, no screen wake.
        public static let passive = InterruptionLevel(rawValue: "passive")
        /// The default: sound and screen wake, held back by Focus.
        public static let active = InterruptionLevel(rawValue: "active")
        /// Breaks through Focus (needs the time-sensitive entitlement).
        public static let timeSensitive = InterruptionLevel(rawValue: "time-sensitive")
        /// Breaks through mute and Focus (needs the critical-alerts entitlement).
        public static let critical = InterruptionLevel(rawValue: "critical")
    }
}
