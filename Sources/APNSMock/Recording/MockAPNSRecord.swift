public import APNSCore
public import Foundation

/// One notification the mock server decided, accepted or rejected.
public struct MockAPNSRecord: Sendable {
    /// What followed `/3/device/` in the path (lowercased), or the whole path when it had another shape.
    public let token: String
    /// The topic used (`apns-topic`, or the certificate's default topic), if any.
    public let topic: String?
    /// The request headers in arrival order.
    public let headers: [(name: String, value: String)]
    /// The request body.
    public let payload: [UInt8]
    /// The subject UID of the client certificate.
    public let clientCertificateUID: String?
    /// The SHA-256 fingerprint of the client certificate's DER (`AB:CD:…`), if one was presented.
    public let clientCertificateFingerprint: String?
    /// The `apns-id` sent back (echoed or generated).
    public let apnsID: String
    /// What the server answered.
    public let outcome: APNSOutcome
    /// The connection it came on.
    public let connectionID: Int
    /// The HTTP/2 stream it came on (0 when unknown).
    public let streamID: Int
    /// When it was decided.
    public let time: Date

    /// A record with the given parts.
    public init(
        token: String, topic: String?, headers: [(name: String, value: String)], payload: [UInt8],
        clientCertificateUID: String?, apnsID: String, outcome: APNSOutcome, connectionID: Int, time: Date,
        streamID: Int = 0, clientCertificateFingerprint: String? = nil
    ) {
        self.token = token
        self.topic = topic
        self.headers = headers
        self.payload = payload
        self.clientCertificateUID = clientCertificateUID
        self.clientCertificateFingerprint = clientCertificateFingerprint
        self.apnsID = apnsID
        self.outcome = outcome
        self.connectionID = connectionID
        self.streamID = streamID
        self.time = time
    }

    /// Whether the server answered 200.
    public var isAccepted: Bool {
        outcome.isAccepted
    }

    /// The rejection, when the server refused.
    public var rejection: APNSRejection? {
        outcome.rejection
    }

    /// The `apns-collapse-id` the request carried, or nil when it had none.
    public var collapseID: String? {
        header(APNSHeader.collapseID)
    }

    /// The first value of request header `name` (lowercase).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}
