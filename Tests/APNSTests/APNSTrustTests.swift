import APNS
import APNSCore
import APNSMock
import PushTLSTesting
import Testing

@Suite("APNs client trust")
struct APNSTrustTests {
    @Test("by default the client trusts only the system CAs: a server with a private CA is refused and gets no request")
    func untrustedServerRefusedByDefault() async throws {
        let (configuration, credential) = try MockAPNSServer.makeForTesting(bundleID: bundleID)
        let server = try MockAPNSServer(configuration: configuration)
        defer { server.stop() }
        // No `trustedCAPEM`: what a production configuration looks like (quick reconnects keep the test short).
        var clientConfiguration = APNSClientConfiguration(
            credentials: .identity(try credential.identity()),
            environment: .custom(host: "127.0.0.1", port: server.port, isDevelopment: true))
        clientConfiguration.initialReconnectDelay = .milliseconds(10)
        clientConfiguration.maxReconnectDelay = .milliseconds(50)
        let client = try APNSClient(configuration: clientConfiguration)
        let notification = APNSNotification(token: tokenA, topic: bundleID, pushType: .alert, payload: .alert("Woof"))
        // Refused for the right reason: certificate verification in the TLS handshake, not (say) a refused
        // connection, which would also throw a transport error.
        let error = await #expect(throws: APNSTransportError.self) { try await client.send(notification) }
        #expect(error?.kind == .notSent)
        #expect(error?.message.hasPrefix("tls: ") == true, "\(String(describing: error))")
        #expect(error?.message.contains("certificate verify failed") == true, "\(String(describing: error))")
        #expect(server.counters().streams == 0)
        #expect(server.records().isEmpty)
        await client.shutdown(deadline: .seconds(5))
    }
}
