import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("Retention purges (every store)")
struct RetentionPurgeTests {
    @Test(arguments: StoreKind.allCases)
    func outboxPurgesFinalRowsInBatchesOldestFirst(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue((0..<7).map { outboxItem("r\($0)", token: $0) } + [outboxItem("waiting", token: 99)])
        let claimed = try await outbox.claim(limit: 7, now: t0)
        try await outbox.complete(
            claimed.enumerated().map { index, item in
                OutboxCompletion(item, index == 6 ? .retry(status: 503, reason: "ServiceUnavailable") : .accepted(apnsUniqueID: nil))
            }, now: at(1))
        #expect(try await outbox.purge(olderThan: at(1), limit: 10) == 0, "strictly older than the cutoff")
        #expect(try await outbox.purge(olderThan: at(2), limit: 4) == 4)
        #expect(try await outbox.item(id: "r0") == nil)
        #expect(try await outbox.item(id: "r4") != nil)
        #expect(try await outbox.purge(olderThan: at(2), limit: 4) == 2)
        #expect(try await outbox.purge(olderThan: at(2), limit: 4) == 0)
        #expect(try await outbox.depth() == 2, "the retried row and the queued one stay")
        #expect(try await outbox.items(pushID: "push-1").map(\.id) == ["r6", "waiting"])
    }

    @Test("a row still to be sent between purged ones keeps its item", arguments: StoreKind.allCases)
    func pendingRowInsideAPurgedRangeStays(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue((0..<3).map { outboxItem("r\($0)", token: $0) })
        let claimed = try await outbox.claim(limit: 3, now: t0)
        try await outbox.complete(
            claimed.map { OutboxCompletion($0, $0.id == "r1" ? .retry(status: 503, reason: "ServiceUnavailable") : .accepted(apnsUniqueID: nil)) },
            now: at(1))
        #expect(try await outbox.purge(olderThan: at(2), limit: 10) == 2)
        #expect(try await outbox.items(pushID: "push-1").map(\.id) == ["r1"])
        #expect(try await outbox.counts() == [.queued: 1, .inFlight: 0, .accepted: 0, .rejected: 0, .failed: 0, .expired: 0])
        #expect(try await outbox.claim(limit: 3, now: at(3_600)).map(\.id) == ["r1"], "still sent again")
    }

    @Test(arguments: StoreKind.allCases)
    func answeredRequestsGoFirstThenTheirDrops(kind: StoreKind) async throws {
        let repos = try await kind.make()
        _ = try await repos.drops.report(dropReport("ana", "bob", id: "m"), now: t0)
        _ = try await repos.drops.report(dropReport("bob", "ana"), now: at(1))
        _ = try await repos.drops.report(dropReport("cy", "dee", id: "c"), now: at(1))
        _ = try await repos.drops.cancel(userID: "cy", now: at(2), window: .seconds(10))
        _ = try await repos.drops.report(dropReport("eve", "fay", id: "p"), now: at(2))
        _ = try await repos.mates.answer(id: "m.peer", accept: true, by: "bob", at: at(3)) { _ in [] }

        #expect(try await repos.drops.purgeEnded(olderThan: at(100), limit: 10) == 1, "only the cancelled drop: the match has requests")
        #expect(try await repos.drops.drop(id: "c") == nil)
        #expect(try await repos.drops.drop(id: "p") != nil)
        #expect(try await repos.mates.purgeAnswered(olderThan: at(100), limit: 10) == 1, "the unanswered request stays")
        #expect(try await repos.mates.request(id: "m.initiator") != nil)
        _ = try await repos.mates.answer(id: "m.initiator", accept: false, by: "ana", at: at(4)) { _ in [] }
        #expect(try await repos.mates.purgeAnswered(olderThan: at(4), limit: 10) == 0)
        #expect(try await repos.mates.purgeAnswered(olderThan: at(5), limit: 10) == 1)
        #expect(try await repos.drops.purgeEnded(olderThan: at(100), limit: 10) == 1)
        #expect(try await repos.drops.pending().map(\.id) == ["p"])
    }

    @Test(arguments: StoreKind.allCases)
    func idempotencyKeysGoByAge(kind: StoreKind) async throws {
        let keys = try await kind.make().idempotency
        for (n, key) in ["a", "b", "c"].enumerated() {
            #expect(try await keys.begin(key: key, scope: "s", fingerprint: [1], now: at(Double(n)), ttl: .seconds(60)) == .proceed)
            try await keys.finish(key: key, scope: "s", answer: IdempotentAnswer(status: 201, body: []))
        }
        #expect(try await keys.purge(olderThan: at(1.5), limit: 10) == 2)
        #expect(
            try await keys.begin(key: "c", scope: "s", fingerprint: [1], now: at(3), ttl: .seconds(60))
                == .replay(IdempotentAnswer(status: 201, body: [])))
        #expect(try await keys.begin(key: "a", scope: "s", fingerprint: [2], now: at(3), ttl: .seconds(60)) == .proceed, "a purged key is new")
    }

    @Test(arguments: StoreKind.allCases)
    func retiredActivityTokensGoInBatchesOldestRetirementFirst(kind: StoreKind) async throws {
        let tokens = try await kind.make().activityTokens
        for n in 1...5 {
            try await tokens.register(
                ActivityTokenRecord(
                    token: token(n), topic: topic, userID: "ana", environment: .development, kind: .update(activityID: "walk-\(n)"),
                    registeredAt: t0))
        }
        try await tokens.register(
            ActivityTokenRecord(
                token: token(9), topic: topic, userID: "ana", environment: .development, kind: .pushToStart(attributesType: "WalkAttributes"),
                registeredAt: t0))
        // walk-1..3 retired at 30, 10, 20 s; walk-4 retires in the future; walk-5 runs on.
        for (n, seconds) in [(1, 30.0), (2, 10), (3, 20), (4, 500)] {
            try await tokens.retire(activityID: "walk-\(n)", at: at(seconds))
        }
        #expect(try await tokens.purgeRetired(olderThan: at(10), limit: 10) == 0, "strictly older than the cutoff")
        #expect(try await tokens.purgeRetired(olderThan: at(100), limit: 2) == 2)
        #expect(try await tokens.tokens(userID: "ana").map(\.token) == [token(1), token(4), token(5), token(9)], "walk-2 and walk-3 went first")
        #expect(try await tokens.purgeRetired(olderThan: at(100), limit: 2) == 1)
        #expect(try await tokens.purgeRetired(olderThan: at(100), limit: 2) == 0)
        // Still in use: the token retiring later, the running activity's and the push-to-start token.
        #expect(try await tokens.tokens(userID: "ana").map(\.token) == [token(4), token(5), token(9)])
        #expect(try await tokens.updateTokens(activityID: "walk-5", now: at(1000)).count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func priorityBudgetEntriesGoOnceOutOfTheWindow(kind: StoreKind) async throws {
        let tokens = try await kind.make().activityTokens
        for seconds in [0.0, 1, 2] {
            #expect(try await tokens.takePriorityBudget(activityID: "walk-1", limit: 3, window: .seconds(3600), now: at(seconds)))
        }
        #expect(try await tokens.takePriorityBudget(activityID: "walk-2", limit: 3, window: .seconds(3600), now: at(5)))
        #expect(try await tokens.purgeBudget(olderThan: at(2), limit: 1) == 1)
        #expect(try await tokens.purgeBudget(olderThan: at(2), limit: 5) == 1)
        #expect(try await tokens.purgeBudget(olderThan: at(2), limit: 5) == 0)
        // What is left still counts: walk-1 has one of three in the window.
        #expect(try await tokens.takePriorityBudget(activityID: "walk-1", limit: 2, window: .seconds(3600), now: at(3)))
        #expect(try await !tokens.takePriorityBudget(activityID: "walk-1", limit: 2, window: .seconds(3600), now: at(4)))
    }
}
