import APNSCore
import Foundation
import TestSupport
import Testing

@testable import PushStore

@Suite("DropRepository (both twins)")
struct DropRepositoryTests {
    @Test(arguments: StoreKind.allCases)
    func insertUpdateAndListPending(kind: StoreKind) async throws {
        let drops = try await kind.make().drops
        try await drops.insert(DropRecord(id: "d2", initiatorID: "bob", peerID: "cy", createdAt: at(2), expiresAt: at(12)))
        try await drops.insert(DropRecord(id: "d1", initiatorID: "ana", peerID: "bob", createdAt: at(1), expiresAt: at(11)))
        try await drops.insert(DropRecord(id: "d3", initiatorID: "dee", peerID: "eve", createdAt: at(3), expiresAt: at(13)))
        #expect(try await drops.pending().map(\.id) == ["d1", "d2", "d3"])

        let matched = try await drops.update(id: "d1", to: .matched, at: at(4))
        #expect(matched.state == .matched && matched.matchedAt == at(4) && matched.closedAt == nil)
        let cancelled = try await drops.update(id: "d2", to: .cancelled, at: at(5))
        #expect(cancelled.state == .cancelled && cancelled.closedAt == at(5) && cancelled.matchedAt == nil)
        #expect(try await drops.update(id: "d3", to: .expired, at: at(13)).closedAt == at(13))
        #expect(try await drops.pending().isEmpty)
        #expect(try await drops.drop(id: "d1") == matched)
        #expect(try await drops.drop(id: "nope") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func onlyPendingDropsChangeState(kind: StoreKind) async throws {
        let drops = try await kind.make().drops
        try await drops.insert(DropRecord(id: "d", initiatorID: "ana", peerID: "bob", createdAt: t0, expiresAt: at(10)))
        await #expect(throws: PushStoreError.duplicateID("d")) {
            try await drops.insert(DropRecord(id: "d", initiatorID: "x", peerID: "y", createdAt: t0, expiresAt: at(10)))
        }
        _ = try await drops.update(id: "d", to: .matched, at: at(1))
        await #expect(throws: PushStoreError.invalidTransition(dropID: "d", from: "matched", to: "cancelled")) {
            _ = try await drops.update(id: "d", to: .cancelled, at: at(2))
        }
        await #expect(throws: PushStoreError.notFound("drop zz")) {
            _ = try await drops.update(id: "zz", to: .expired, at: at(2))
        }
        await #expect(throws: PushStoreError.invalidUserID("a b")) {
            try await drops.insert(DropRecord(id: "e", initiatorID: "a b", peerID: "y", createdAt: t0, expiresAt: at(10)))
        }
        #expect(try await drops.drop(id: "d")?.state == .matched)
    }

    @Test func pendingDropsSurviveReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("drops-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try PushRepositories.sqlite(path: path)
            try await store.drops.insert(DropRecord(id: "d", initiatorID: "ana", peerID: "bob", createdAt: t0, expiresAt: at(10)))
            try await store.mateRequests.insert(
                MateRequestRecord(
                    id: "m", dropID: "d", senderID: "ana", recipientID: "bob",
                    createdAt: t0))
        }
        let reopened = try PushRepositories.sqlite(path: path)
        #expect(try await reopened.drops.pending().map(\.id) == ["d"])
        #expect(try await reopened.mateRequests.request(id: "m")?.state == .pending)
    }
}
