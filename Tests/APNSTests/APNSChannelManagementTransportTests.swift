import APNS
import APNSCore
import Foundation
import PushTLSTesting
import TestSupport
import Testing

@Suite("Channel management client: no listener, a silent one, shutdown")
struct APNSChannelManagementTransportTests {
    /// A management client for `port` on 127.0.0.1 with a throw-away identity and quick back-off.
    static func client(port: Int, configure: (inout APNSClientConfiguration) -> Void = { _ in }) throws -> APNSChannelManagementClient {
        let authority = try TestCertificateAuthority()
        var configuration = APNSClientConfiguration(
            credentials: .identity(try authority.issueClientCertificate(bundleID: bundleID).identity()),
            environment: .custom(host: "127.0.0.1", port: port, isDevelopment: true), trustedCAPEM: authority.certificatePEM)
        configuration.initialReconnectDelay = .milliseconds(10)
        configuration.maxReconnectDelay = .milliseconds(20)
        configure(&configuration)
        return try APNSChannelManagementClient(configuration: configuration)
    }

    /// The transport error a call ended with.
    static func transportError(_ call: () async throws -> Void) async -> APNSTransportError? {
        do {
            try await call()
            return nil
        } catch {
            guard case .transport(let failure)? = error as? APNSChannelManagementError else { return nil }
            return failure
        }
    }

    @Test("nobody listening: the resends run out and the call ends notSent (safe to repeat)")
    func refused() async throws {
        let client = try Self.client(port: try FreePort.pick())
        let error = await Self.transportError { _ = try await client.channels(bundleID: bundleID) }
        #expect(error?.kind == .notSent)
        await client.shutdown()
    }

    @Test("a peer that never answers: the call ends by its deadline")
    func silent() async throws {
        let peer = try LoopbackSocket(listening: true)
        defer { peer.close() }
        let client = try Self.client(port: peer.port) {
            $0.connectTimeout = .milliseconds(200)
            $0.requestTimeout = .milliseconds(500)
        }
        let error = await Self.transportError { _ = try await client.channels(bundleID: bundleID) }
        #expect(error?.kind == .timeout || error?.kind == .notSent)
        await client.shutdown()
    }

    @Test("after shutdown every call fails with shutdown")
    func afterShutdown() async throws {
        try await withBroadcast { fixture in
            _ = try await fixture.makeChannel()
            await fixture.channels.shutdown()
            let error = await Self.transportError { _ = try await fixture.channels.channels(bundleID: bundleID) }
            #expect(error?.kind == .shutdown)
        }
    }
}
