import APNS
import APNSCore
import APNSMock
import Foundation
import JSON
import PushSync
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

@testable import PushService

/// A reload renews the apps' channel management clients as it renews their push clients.
@Suite("credential reload renews channel management clients")
struct ChannelReloadTests {
    @Test("after a certificate renewal, management requests reach the mock's channel listener with the new certificate")
    func managementRequestsUseTheRenewedCertificate() async throws {
        let fixture = try await MultiAppFixture.start(channels: true)
        do {
            let client = fixture.client
            let first = try await client.send(
                "POST", "/v1/channels", json: ["topic": .string(MultiAppFixture.dogs), "environment": "development"])
            #expect(first.status == 201, "\(String(decoding: first.body, as: UTF8.self))")
            let before = try #require(fixture.dogsMock.channelRequests().last)
            let oldFingerprint = try #require(before.clientCertificateFingerprint)

            let renewed = try fixture.dogsAuthority.issueClientCertificate(
                bundleID: MultiAppFixture.dogs, topics: [MultiAppFixture.dogs, MultiAppFixture.dogs + ".voip"],
                notAfter: Date().addingTimeInterval(300 * 86400))
            try Data(try renewed.pkcs12(password: "dogs-pw")).write(to: URL(fileURLWithPath: fixture.dogsP12Path), options: .atomic)
            let reload = try await client.send("POST", "/v1/admin/reload")
            #expect(reload.status == 200)
            #expect(reload.json?["apps"]?.arrayValue?.first?["outcome"]?.stringValue == "reloaded")

            let second = try await client.send(
                "POST", "/v1/channels", json: ["topic": .string(MultiAppFixture.dogs), "environment": "development"])
            #expect(second.status == 201)
            let firstID = try #require(first.json?["id"]?.stringValue)
            let deleted = try await client.send("DELETE", "/v1/channels/" + ChannelHarness.pathID(firstID))
            #expect(deleted.status == 204)
            let after = fixture.dogsMock.channelRequests().dropFirst()
            #expect(after.map(\.method) == ["POST", "DELETE"])
            let newFingerprint = try renewed.certificate().sha256Fingerprint
            #expect(newFingerprint != oldFingerprint)
            #expect(after.allSatisfy { $0.clientCertificateFingerprint == newFingerprint })
            #expect(after.allSatisfy { $0.connectionID != before.connectionID }, "a new management connection")
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    @Test("the replaced manager finishes its request before it is shut down; new requests go to the new one")
    func swappableManagerDrains() async throws {
        let old = HeldChannelManager()
        let new = HeldChannelManager()
        let manager = SwappableChannelManager(old)
        let inFlight = Task { try await manager.createChannel(bundleID: "com.example.dogs", storagePolicy: .noMessageStored, requestID: nil) }
        try await old.waitForRequests(1)
        manager.replace(with: new)
        #expect(manager.draining == 1)
        #expect(old.shutdowns == 0, "its request is still open")
        let list = Task { try await manager.channels(bundleID: "com.example.dogs", requestID: nil) }
        try await new.waitForRequests(1)
        #expect(old.requests == 1)
        old.answerAll()
        #expect(try await inFlight.value.channelID == HeldChannelManager.channel, "the old request finished")
        try await old.waitForShutdown()
        #expect(manager.draining == 0)
        new.answerAll()
        #expect(try await list.value.channelIDs == [HeldChannelManager.channel])
        #expect(new.shutdowns == 0)
        await manager.shutdown()
        #expect(new.shutdowns == 1)
    }
}

/// A channel manager that holds every request until `answerAll`, and counts requests and shutdowns;
/// `waitForRequests` and `waitForShutdown` return once those happened (no polling), or throw
/// `DeadlineExceeded` naming what they waited for.
final class HeldChannelManager: APNSChannelManaging {
    static let channel = APNSChannelID("dHN0LXNyY2gtY2hubA==")

    private struct State {
        var held: [CheckedContinuation<Void, Never>] = []
        var requests = 0
        var shutdowns = 0
        var waiters: [(condition: @Sendable (Int, Int) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = PThreadLock(State())

    var requests: Int { state.withLock { $0.requests } }
    var shutdowns: Int { state.withLock { $0.shutdowns } }

    func createChannel(
        bundleID: String, storagePolicy: APNSMessageStoragePolicy, requestID: String?
    ) async throws(APNSChannelManagementError) -> APNSCreatedChannel {
        await hold()
        return APNSCreatedChannel(channelID: Self.channel, requestID: requestID)
    }

    func channel(_ channelID: APNSChannelID, bundleID: String, requestID: String?) async throws(APNSChannelManagementError)
        -> APNSChannelConfiguration
    {
        await hold()
        return APNSChannelConfiguration(channelID: channelID, storagePolicy: .noMessageStored, pushType: "LiveActivity", requestID: requestID)
    }

    func channels(bundleID: String, requestID: String?) async throws(APNSChannelManagementError) -> APNSChannelList {
        await hold()
        return APNSChannelList(channelIDs: [Self.channel], requestID: requestID)
    }

    func deleteChannel(_ channelID: APNSChannelID, bundleID: String, requestID: String?) async throws(APNSChannelManagementError)
        -> APNSDeletedChannel
    {
        await hold()
        return APNSDeletedChannel(channelID: channelID, requestID: requestID)
    }

    func shutdown() async {
        state.withLock { $0.shutdowns += 1 }
        wake()
    }

    /// Lets every held request return.
    func answerAll() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    func waitForRequests(_ count: Int) async throws {
        try await awaitEvent("\(count) channel request(s) at this client") { await self.wait { requests, _ in requests >= count } }
    }

    func waitForShutdown() async throws {
        try await awaitEvent("this client's shutdown") { await self.wait { _, shutdowns in shutdowns > 0 } }
    }

    private func hold() async {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                state.requests += 1
                state.held.append(continuation)
            }
            wake()
        }
    }

    private func wait(_ condition: @escaping @Sendable (Int, Int) -> Bool) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if condition(state.requests, state.shutdowns) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func wake() {
        let ready = state.withLock { state in
            let ready = state.waiters.filter { $0.condition(state.requests, state.shutdowns) }.map(\.continuation)
            state.waiters.removeAll { $0.condition(state.requests, state.shutdowns) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
