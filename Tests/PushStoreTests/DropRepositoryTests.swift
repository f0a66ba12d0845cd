import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// A report of `peer` by `reporter` with a 10 s window whose match queues one outbox row per mate request.
func dropReport(_ reporter: String, _ peer: String, id: String = OutboxID.make(), window: Duration = .seconds(10)) -> DropReportRequest {
    DropReportRequest(reporterID: reporter, peerID: peer, newDropID: id, window: window) { _, requests in
        requests.enumerated().map { outboxItem("\($1.id)-row", push: $1.id, token: $0) }
    }
}

@Suite("DropRepository: the drop rules in every store")
struct DropRepositoryTests {
    @Test(arguments: StoreKind.allCases)
    func thePeersReportMatchesOnceAndRepeatsAreIdempotent(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let drops = repos.drops
        #expect(try await drops.report(dropReport("ana", "bob", id: "d1"), now: t0).0 == .pending(try #require(try await drops.drop(id: "d1"))))
        let pending = try #require(try await drops.drop(id: "d1"))
        #expect(pending.initiatorID == "ana" && pending.peerID == "bob" && pending.expiresAt == at(10))
        #expect(try await drops.report(dropReport("ana", "bob", id: "other"), now: at(1)).0 == .pending(pending))
        #expect(try await drops.drop(id: "other") == nil)

        let (outcome, _) = try await drops.report(dropReport("bob", "ana", id: "d2"), now: at(2))
        guard case .matched(let drop, let requests) = outcome else {
            Issue.record("no match: \(outcome)")
            return
        }
        #expect(drop.id == "d1" && drop.state == .matched && drop.matchedAt == at(2))
        #expect(requests.map(\.id) == ["d1.initiator", "d1.peer"])
        #expect(requests.map(\.recipientID) == ["ana", "bob"] && requests.map(\.senderID) == ["bob", "ana"])
        #expect(try await repos.mates.requests(forDrop: "d1") == requests)
        #expect(try await repos.outbox.items(pushID: "d1.initiator").map(\.id) == ["d1.initiator-row"])
        #expect(try await repos.outbox.items(pushID: "d1.peer").map(\.id) == ["d1.peer-row"])

        // Repeats from either side within the window return the match and write nothing.
        for (reporter, peer) in [("bob", "ana"), ("ana", "bob")] {
            #expect(try await drops.report(dropReport(reporter, peer), now: at(11)).0 == .alreadyMatched(drop, requests))
        }
        #expect(try await repos.outbox.depth() == 2)
        // After the window, the pair can drop again.
        guard case .pending(let next) = try await drops.report(dropReport("ana", "bob", id: "d3"), now: at(13)).0 else {
            Issue.record("expected a new pending drop")
            return
        }
        #expect(next.id == "d3")
    }

    @Test(arguments: StoreKind.allCases)
    func aUserHasAtMostOnePendingDrop(kind: StoreKind) async throws {
        let drops = try await kind.make().drops
        _ = try await drops.report(dropReport("ana", "bob", id: "d1"), now: t0)
        for (reporter, peer) in [("cy", "ana"), ("cy", "bob"), ("ana", "cy"), ("bob", "cy")] {
            #expect(try await drops.report(dropReport(reporter, peer), now: at(1)).0 == .busy, "\(reporter) → \(peer)")
        }
        #expect(try await drops.pending().map(\.id) == ["d1"])
        // Once the drop is gone, the users are free again.
        #expect(try await drops.cancel(userID: "bob", now: at(2), window: .seconds(10)).0 == .cancelled(try #require(try await drops.drop(id: "d1"))))
        guard case .pending(let drop) = try await drops.report(dropReport("cy", "ana", id: "d2"), now: at(3)).0 else {
            Issue.record("expected a pending drop")
            return
        }
        #expect(drop.initiatorID == "cy")
    }

    @Test(arguments: StoreKind.allCases)
    func cancelAndMatchAreDecidedOnce(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let drops = repos.drops
        #expect(try await drops.cancel(userID: "ana", now: t0, window: .seconds(10)).0 == .nothingPending)
        _ = try await drops.report(dropReport("ana", "bob", id: "d1"), now: t0)
        let (cancelled, _) = try await drops.cancel(userID: "ana", now: at(1), window: .seconds(10))
        let stored = try #require(try await drops.drop(id: "d1"))
        #expect(cancelled == .cancelled(stored) && stored.state == .cancelled && stored.closedAt == at(1))
        // The peer's report after the cancel starts a new drop, and pushes nothing for the cancelled one.
        guard case .pending(let fresh) = try await drops.report(dropReport("bob", "ana", id: "d2"), now: at(2)).0 else {
            Issue.record("expected a pending drop")
            return
        }
        #expect(fresh.initiatorID == "bob")
        guard case .matched(let matched, _) = try await drops.report(dropReport("ana", "bob"), now: at(3)).0 else {
            Issue.record("expected a match")
            return
        }
        #expect(try await drops.cancel(userID: "bob", now: at(4), window: .seconds(10)).0 == .alreadyMatched(matched))
        #expect(try await repos.mates.requests(forDrop: "d1").isEmpty)
        #expect(try await repos.outbox.depth() == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func dropsExpireAfterTheirWindow(kind: StoreKind) async throws {
        let drops = try await kind.make().drops
        _ = try await drops.report(dropReport("ana", "bob", id: "d1"), now: t0)
        _ = try await drops.report(dropReport("cy", "dee", id: "d2"), now: at(5))
        #expect(try await drops.current(userID: "ana", now: at(10), window: .seconds(10)).0?.id == "d1", "still pending at its last instant")
        let (none, expired) = try await drops.current(userID: "bob", now: at(11), window: .seconds(10))
        #expect(none == nil && expired.map(\.id) == ["d1"] && expired.first?.closedAt == at(11))
        #expect(try await drops.expireDue(now: at(15)).isEmpty)
        #expect(try await drops.expireDue(now: at(16)).map(\.id) == ["d2"])
        #expect(try await drops.drop(id: "d2")?.state == .expired)
        // The peer's report after the window does not match the expired drop.
        guard case .pending(let drop) = try await drops.report(dropReport("bob", "ana", id: "d3"), now: at(20)).0 else {
            Issue.record("expected a pending drop")
            return
        }
        #expect(drop.id == "d3")
        // A report that finds both of its users in one drop past its window expires that drop once.
        let (late, expiredOnce) = try await drops.report(dropReport("ana", "bob", id: "d4"), now: at(31))
        #expect(expiredOnce.map(\.id) == ["d3"])
        #expect(late == .pending(DropRecord(id: "d4", initiatorID: "ana", peerID: "bob", createdAt: at(31), expiresAt: at(41))))
    }

    @Test(arguments: StoreKind.allCases)
    func badInputChangesNothing(kind: StoreKind) async throws {
        let repos = try await kind.make()
        await #expect(throws: PushStoreError.invalidUserID("a b")) {
            _ = try await repos.drops.report(dropReport("a b", "bob"), now: t0)
        }
        #expect(try await repos.drops.pending().isEmpty)
        // A match whose push rows are invalid stores neither the match nor the requests.
        _ = try await repos.drops.report(dropReport("ana", "bob", id: "d1"), now: t0)
        let broken = DropReportRequest(reporterID: "bob", peerID: "ana", newDropID: "x", window: .seconds(10)) { _, _ in
            var row = outboxItem("bad")
            row.topic = ""
            return [row]
        }
        await #expect(throws: PushStoreError.self) { _ = try await repos.drops.report(broken, now: at(1)) }
        #expect(try await repos.drops.drop(id: "d1")?.state == .pending)
        #expect(try await repos.mates.requests(forDrop: "d1").isEmpty)
        #expect(try await repos.outbox.depth() == 0)
        // A new drop under an id that exists (here a matched one) is refused and engages nobody.
        _ = try await repos.drops.report(dropReport("bob", "ana", id: "unused"), now: at(2))
        #expect(try await repos.drops.drop(id: "d1")?.state == .matched)
        await #expect(throws: PushStoreError.duplicateID("d1")) {
            _ = try await repos.drops.report(dropReport("cy", "dee", id: "d1"), now: at(3))
        }
        #expect(try await repos.drops.pending().isEmpty)
        #expect(try await repos.drops.report(dropReport("dee", "eve", id: "d2"), now: at(4)).0 != .busy)
    }

    @Test func pendingDropsSurviveReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("drops-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try PushRepositories.sqlite(path: path)
            _ = try await store.drops.report(dropReport("ana", "bob", id: "d"), now: t0)
        }
        let reopened = try PushRepositories.sqlite(path: path)
        #expect(try await reopened.drops.pending().map(\.id) == ["d"])
        #expect(try await reopened.drops.report(dropReport("cy", "ana"), now: at(1)).0 == .busy)
        guard case .matched(let drop, _) = try await reopened.drops.report(dropReport("bob", "ana"), now: at(2)).0 else {
            Issue.record("expected a match")
            return
        }
        #expect(drop.id == "d")
    }
}
