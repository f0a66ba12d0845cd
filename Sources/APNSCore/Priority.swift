/// The `apns-priority` header: how urgently APNs delivers.
public struct Priority: RawValueIdentified, Sendable {
    /// The header value: 10, 5 or 1.
    public let rawValue: Int
    /// The header value as text, precomputed for the request hot path.
    public let headerValue: String

    /// Accepts only the values Apple defines: 10, 5 and 1.
    public init?(rawValue: Int) {
        switch rawValue {
        case 10, 5, 1: self.init(checked: rawValue)
        default: return nil
        }
    }

    private init(checked rawValue: Int) {
        self.rawValue = rawValue
        self.headerValue = String(rawValue)
    }

    /// Parses a header value such as `"10"`; anything but 10, 5 or 1 yields `nil`.
    public init?(headerValue: some StringProtocol) {
        guard let value = Int(headerValue) else { return nil }
        self.init(rawValue: value)
    }

    /// 10: deliver now (invalid for background-only pushes).
    public static let immediately = Priority(checked: 10)
    /// 5: deliver when the device's power allows.
    public static let consideringDevicePower = Priority(checked: 5)
    /// 1: prioritize power over all else; may be grouped and delivered in bursts.
    public static let low = Priority(checked: 1)
}
