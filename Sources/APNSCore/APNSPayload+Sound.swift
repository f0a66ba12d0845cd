public import JSON

extension APNSPayload {
    /// `aps.sound`: a named sound, or a critical alert sound that plays despite mute and Focus.
    public enum Sound: Sendable, Hashable {
        /// `"sound": "name"`; `"default"` is the system sound.
        case named(String)
        /// `"sound": {"critical": 1, "name": …, "volume": 0…1}` (needs the critical-alerts entitlement).
        case critical(name: String, volume: Double)

        /// The system's default sound.
        public static let `default` = Sound.named("default")

        /// The JSON form: a string or the critical dictionary.
        public var jsonValue: JSONValue {
            switch self {
            case .named(let name):
                .string(name)
            case .critical(let name, let volume):
                .object(["critical": .int(1), "name": .string(name), "volume": .double(volume)])
            }
        }
    }
}
