public import APNSCore
import Foundation
public import PushTLS
public import PushTLSTesting

extension MockAPNSServer {
    /// Which APNs gateway the mock pretends to be.
    public enum Environment: Sendable, Hashable {
        /// The sandbox: `apns-unique-id` on success; certificates need Apple's development marker.
        case development
        /// Production: certificates need Apple's production marker.
        case production
    }

    /// How a mock server listens and behaves. Defaults follow Apple's servers where Apple has a value.
    public struct Configuration: Sendable {
        /// Address to bind.
        public var host = "127.0.0.1"
        /// Port to bind; 0 picks a free one (read `MockAPNSServer.port`).
        public var port = 0
        /// The server's certificate and key.
        public var serverIdentity: TLSIdentity
        /// CA certificates (PEM) client certificates must chain to; clients without one fail the handshake.
        /// nil asks for no client certificate: a token-auth-only server (see `MockAPNSTokenAuthenticator`).
        public var clientCATrustPEM: String?
        /// The TLS client-certificate policy; nil derives it: `.require(trust: clientCATrustPEM)` when a CA
        /// is set, else `.none`. `.request` (any certificate, unverified) lets one server take certificate
        /// and token clients, with `MockAPNSTokenAuthenticator(certificates:)`.
        public var clientCertificatePolicy: ClientCertificatePolicy?
        /// CA (PEM) that issued `serverIdentity`, published as `credentials.caPEM`; nil publishes the server certificate.
        public var serverCAPEM: String?
        /// The gateway to imitate.
        public var environment: Environment = .development
        /// SETTINGS_MAX_CONCURRENT_STREAMS announced at first (Apple: 1000).
        public var maxConcurrentStreams = 1000
        /// Apple's throttle: after a rejection announce MAX_CONCURRENT_STREAMS = 1 on that connection,
        /// restore `maxConcurrentStreams` after its next success. Off by default.
        public var dropStreamLimitAfterRejection = false
        /// Delay before each answer.
        public var latency: MockLatency = .none
        /// Send GOAWAY after this many requests on a connection (those requests are still answered).
        public var goAwayAfterStreams: Int?
        /// The reason in that GOAWAY's debug data, `{"reason":"…"}`.
        public var goAwayReason: APNSRejectionReason = .shutdown
        /// Close the TCP connection this long after any GOAWAY, whether or not every stream up to
        /// its last-stream-id was answered (some APNs-like servers do); nil waits for the client to close.
        public var closeAfterGoAway: Duration?
        /// Reset the TCP connection when request N+1 arrives (the first N are answered).
        public var abruptCloseAfterStreams: Int?
        /// Reset the TCP connection that carries every N-th request, counted across all connections of the
        /// server (that request and the connection's unanswered ones get no answer: their outcome is unknown).
        public var abruptCloseEveryStreams: Int?
        /// Chances of 429/500/503 for otherwise accepted notifications.
        public var faultRates: MockFaultRates = .none
        /// Close connections idle this long with GOAWAY `{"reason":"IdleTimeout"}`.
        public var idleTimeout: Duration?
        /// Benchmark fast path: no handler, rules, faults or records; 200 with `apns-id`, at once or after
        /// the latency knob's delay (answers due within the same millisecond go out on one timer wake-up,
        /// none before its time), counters still kept. Connection knobs (GOAWAY/abrupt close/idle) still apply.
        public var acceptAll = false
        /// Keep at most this many records (oldest dropped first; counters keep counting); nil keeps all.
        /// A long-running mock (push-server's embedded default) sets it so memory stays flat.
        public var maxRecords: Int?
        /// Called first for each request; nil from it (or no handler) lets the default rules decide.
        public var handler: MockAPNSHandler?
        /// Who may send what; nil uses `MockAPNSCertificateAuthenticator`.
        public var authenticator: (any MockAPNSAuthenticator)?
        /// Seed for jitter and fault rolls: the same seed and request order give the same answers.
        public var randomSeed: UInt64 = 0x5EED

        /// A configuration with the server's identity and the CA its clients' certificates must chain to
        /// (nil: no client certificates, for token auth).
        public init(serverIdentity: TLSIdentity, clientCATrustPEM: String?) {
            self.serverIdentity = serverIdentity
            self.clientCATrustPEM = clientCATrustPEM
        }

        /// A configuration for credentials written by `TestCredentialFiles`: the server certificate and key
        /// from `files`, client certificates required to chain to its CA, and that CA published for clients.
        public init(credentialFiles files: TestCredentialFiles) throws {
            let caPEM = try String(contentsOfFile: files.caCertificatePath, encoding: .utf8)
            self.init(
                serverIdentity: try TLSIdentity(
                    certificatePEMPath: files.serverCertificatePath,
                    keyPEMPath: files.serverKeyPath),
                clientCATrustPEM: caPEM)
            serverCAPEM = caPEM
        }

        /// The client-certificate policy in effect.
        var effectiveClientCertificatePolicy: ClientCertificatePolicy {
            if let clientCertificatePolicy { return clientCertificatePolicy }
            return clientCATrustPEM.map { .require(trust: .caPEM($0)) } ?? .none
        }

        /// The TLS context of every listener of the server: its identity and the client-certificate policy
        /// in effect.
        func makeServerTLS() throws -> TLSContext {
            try TLSContext.server(TLSServerConfiguration(identity: serverIdentity, clientCertificates: effectiveClientCertificatePolicy))
        }
    }

    /// What clients need to trust the server.
    public struct Credentials: Sendable, Hashable {
        /// CA certificate (PEM) to trust.
        public let caPEM: String

        /// The trust setting for a client's `TLSClientConfiguration`.
        public var trust: TLSTrust {
            .caPEM(caPEM)
        }
    }
}
