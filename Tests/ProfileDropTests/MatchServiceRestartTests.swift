import APNSCore
import Foundation
import ProfileDrop
import PushStore
import PushStoreSQL
import TestSupport
import Testing

@Suite("MatchService restart over a real SQLite store")
struct MatchServiceRestartTests {
    static func setUp(_ store: PushRepositories, users: ClosedRange<Int>, now: Date) async throws {
        for number in users {
            _ = try await store.users.put(id: "u\(number)", card: DropFixture.card("u\(number)"), now: now)
            for device in 0..<2 {
                _ = try await store.devices.register(
                    token: DropFixture.token(user: number, device: device),
                    topic: DropFixture.topic, userID: "u\(number)",
                    environment: "production", now: now)
            }
        }
    }

    @Test("a pending drop survives a restart, and a second service on the same store sees it at once")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("push.sqlite").path
        let clock = ManualClock()

        let pendingDrop: DropRecord
        do {
            let store = try PushRepositories.sqlite(path: path)
            try await Self.setUp(store, users: 1...5, now: clock.now)
            let service = MatchService(repositories: store, clock: clock.closure)
            pendingDrop = try #require(try await service.report(userID: "u1", peerID: "u2", distance: 0.2).drop)
        }
        clock.advance(3)
        let store = try PushRepositories.sqlite(path: path)
        let service = MatchService(repositories: store, clock: clock.closure)
        let other = MatchService(repositories: store, clock: clock.closure)  // another instance, same store
        #expect(try await service.status(userID: "u2") == pendingDrop)
        #expect(try await other.report(userID: "u5", peerID: "u1", distance: 0.1) == .busy)

        guard case .matched(let drop, let requests) = try await other.report(userID: "u2", peerID: "u1", distance: 0.3)
        else {
            Issue.record("expected the stored drop to match")
            return
        }
        #expect(drop.id == pendingDrop.id)
        #expect(try await service.report(userID: "u1", peerID: "u2", distance: 0.3) == .matched(drop, mateRequests: requests))
        #expect(try await store.mateRequests.requests(forDrop: drop.id) == requests)
        #expect(try await service.cancel(userID: "u1") == .alreadyMatched(drop))
        let pushes = try await store.outbox.claim(limit: 100, now: clock.now)
        #expect(pushes.count == 4 && pushes.allSatisfy { $0.collapseID == drop.id })
        #expect(try await store.drops.pending().isEmpty)
    }

    @Test("a drop whose window passed while the service was down expires when touched, pushing nothing")
    func expiresAfterDowntime() async throws {
        let clock = ManualClock()
        let store = try PushRepositories.sqlite(path: ":memory:")
        try await Self.setUp(store, users: 1...2, now: clock.now)
        _ = try await MatchService(repositories: store, clock: clock.closure)
            .report(userID: "u1", peerID: "u2", distance: 0.1)
        clock.advance(11)
        let service = MatchService(repositories: store, clock: clock.closure)
        #expect(try await service.status(userID: "u1") == nil)
        #expect(try await store.drops.pending().isEmpty)
        #expect(try await store.outbox.depth() == 0)
        #expect(await service.metrics.expiries == 1)
    }
}
