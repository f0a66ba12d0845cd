/// Which APNs gateways a certificate may use (Apple's 6.3.1 and 6.3.2 marker extensions).
public struct APNSCertificateEnvironments: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates a set from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The sandbox gateway (api.sandbox.push.apple.com).
    public static let development = APNSCertificateEnvironments(rawValue: 1 << 0)
    /// The production gateway (api.push.apple.com).
    public static let production = APNSCertificateEnvironments(rawValue: 1 << 1)
    /// Both gateways, as Apple's universal certificates allow.
    public static let both: APNSCertificateEnvironments = [.development, .production]
}
