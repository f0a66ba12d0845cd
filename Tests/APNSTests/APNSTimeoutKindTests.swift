import APNS
import APNSCore
import PushTLSTesting
import TestSupport
import Testing

/// A request timeout says whether the notification was written: one never written is `notSent` (safe
/// to send again), so the outbox does not count its re-send as one after an unknown outcome.
@Suite("Request timeouts before a request is written")
struct APNSTimeoutKindTests {
    @Test("no connection within the timeout: notSent", arguments: [false, true])
    func neverWritten(connectionHangs: Bool) async throws {
        // A closed port (connections fail, the send waits for one) or a listener that never answers
        // (the send waits in the connecting connection's queue).
        let socket = try LoopbackSocket(listening: connectionHangs)
        defer { socket.close() }
        let authority = try TestCertificateAuthority()
        let credential = try authority.issueClientCertificate(bundleID: bundleID)
        var configuration = APNSClientConfiguration(
            credentials: .identity(try credential.identity()), environment: .custom(host: "127.0.0.1", port: socket.port),
            trustedCAPEM: authority.certificatePEM)
        configuration.requestTimeout = .milliseconds(300)
        configuration.connectTimeout = .seconds(10)
        let client = try APNSClient(configuration: configuration)
        let error = await #expect(throws: APNSTransportError.self) { try await client.send(alert()) }
        #expect(error?.kind == .notSent, "\(String(describing: error))")
        #expect(error?.isSafeToRetry == true)
        #expect(error?.message.contains("request timeout") == true)
        await client.shutdown(deadline: .seconds(1))
    }
}
