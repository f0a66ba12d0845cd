import APNSCore
import Foundation
import ProfileDrop
import PushStore
import TestSupport
import Testing

@Suite("MatchService restart over a real SQLite store")
struct MatchServiceRestoreTests {
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

    @Test("a pending drop survives a restart; a drop caught mid-match is finished on restore")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("push.sqlite").path
        let clock = ManualClock()

        let (pendingDrop, interrupted): (DropRecord, DropRecord)
        do {
            let store = try PushRepositories.sqlite(path: path)
            try await Self.setUp(store, users: 1...5, now: clock.now)
            let service = MatchService(repositories: store, clock: clock.closure)
            let report = { (user: String, peer: String) in
                try await service.report(userID: user, peerID: peer, distance: 0.2, direction: nil)
            }
            pendingDrop = try #require(try await report("u1", "u2").drop)
            interrupted = try #require(try await report("u3", "u4").drop)
        }
        clock.advance(3)
        do {  // a crash after the first mate request of u3–u4's match was written
            let store = try PushRepositories.sqlite(path: path)
            try await store.mateRequests.insert(
                MateRequestRecord(
                    id: MatchService.requestIDToInitiator(dropID: interrupted.id), dropID: interrupted.id,
                    senderID: "u4", recipientID: "u3", createdAt: clock.now))
        }

        let store = try PushRepositories.sqlite(path: path)
        let service = MatchService(repositories: store, clock: clock.closure)
        #expect(try await service.restore() == 1)
        #expect(try await service.status(userID: "u2") == pendingDrop)
        #expect(try await service.report(userID: "u5", peerID: "u1", distance: 0.1) == .busy)

        // The interrupted match was finished: both requests, one push per device, drop matched.
        #expect(try await store.drops.drop(id: interrupted.id)?.state == .matched)
        let finished = try await store.mateRequests.requests(forDrop: interrupted.id)
        #expect(finished.map(\.recipientID).sorted() == ["u3", "u4"])
        let outbox = store.outbox
        for request in finished { #expect(try await outbox.items(pushID: request.id).count == 2) }
        #expect(try await service.cancel(userID: "u3") == .alreadyMatched(try #require(try await store.drops.drop(id: interrupted.id))))

        guard case .matched(let drop, let requests) = try await service.report(userID: "u2", peerID: "u1", distance: 0.3)
        else {
            Issue.record("expected the restored drop to match")
            return
        }
        #expect(drop.id == pendingDrop.id)
        #expect(try await store.mateRequests.requests(forDrop: drop.id) == requests)
        let pushes = try await outbox.claim(limit: 100, now: clock.now)
        #expect(pushes.count == 8)
        #expect(pushes.filter { $0.collapseID == drop.id }.count == 4)
        #expect(try await store.drops.pending().isEmpty)
    }

    @Test("restore expires drops whose window passed while the service was down, pushing nothing")
    func restoreExpires() async throws {
        let clock = ManualClock()
        let store = try PushRepositories.sqlite(path: ":memory:")
        try await Self.setUp(store, users: 1...2, now: clock.now)
        _ = try await MatchService(repositories: store, clock: clock.closure)
            .report(userID: "u1", peerID: "u2", distance: 0.1)
        clock.advance(11)
        let service = MatchService(repositories: store, clock: clock.closure)
        #expect(try await service.restore() == 0)
        #expect(try await store.drops.pending().isEmpty)
        #expect(try await service.status(userID: "u1") == nil)
        #expect(try await store.outbox.depth() == 0)
        #expect(await service.metrics.expiries == 1)
    }
}
