import APNSCore

/// One request as the mock server saw it, handed to handlers and authenticators.
public struct MockAPNSRequest: Sendable {
    /// `:method`.
    public let method: String
    /// `:path`.
    public let path: String
    /// Regular headers in arrival order; repeated names stay repeated.
    public let headers: [(name: String, value: String)]
    /// The body.
    public let payload: [UInt8]
    /// The subject UID of the client certificate, if one was presented.
    public let clientCertificateUID: String?
    /// The SHA-256 fingerprint of the client certificate's DER (`AB:CD:…`, as `openssl x509 -fingerprint`
    /// prints it), if one was presented:
    /// unlike the UID, it tells a renewed certificate from the one it replaced.
    public let clientCertificateFingerprint: String?
    /// The connection it came on (1, 2, … per server).
    public let connectionID: Int
    /// What follows `/3/device/` in the path (unchecked), or nil when the path has another shape.
    public let token: String?

    /// A request with the given parts.
    public init(
        method: String = "POST", path: String, headers: [(name: String, value: String)] = [],
        payload: [UInt8] = [], clientCertificateUID: String? = nil, connectionID: Int = 0,
        clientCertificateFingerprint: String? = nil
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.payload = payload
        self.clientCertificateUID = clientCertificateUID
        self.clientCertificateFingerprint = clientCertificateFingerprint
        self.connectionID = connectionID
        token =
            path.hasPrefix(APNSHeader.devicePathPrefix)
            ? String(path.dropFirst(APNSHeader.devicePathPrefix.count)) : nil
    }

    /// The first value of header `name` (lowercase).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// `apns-topic`, if sent.
    public var topic: String? {
        header(APNSHeader.topic)
    }
}
