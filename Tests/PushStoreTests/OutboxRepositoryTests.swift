import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("OutboxRepository (both twins)")
struct OutboxRepositoryTests {
    @Test(arguments: StoreKind.allCases)
    func enqueueManyAndQueryByPush(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue((0..<1_000).map { outboxItem("a\($0)", push: "fanout", token: $0) })
        try await outbox.enqueue([outboxItem("b0", push: "other")])
        let fanout = try await outbox.items(pushID: "fanout")
        #expect(fanout.count == 1_000)
        #expect(fanout.first?.id == "a0" && fanout.last?.id == "a999")
        #expect(fanout.allSatisfy { $0.state == .queued && $0.attempts == 0 && $0.nextAttemptAt == t0 })
        let counts = try await outbox.counts()
        #expect(counts[.queued] == 1_001 && counts[.accepted] == 0 && counts.count == OutboxState.allCases.count)
        #expect(try await outbox.depth() == 1_001)
        #expect(try await outbox.pendingCounts() == [.queued: 1_001, .inFlight: 0])
        let item = try #require(try await outbox.item(id: "b0"))
        #expect(item == outboxItem("b0", push: "other"))
    }

    @Test(arguments: StoreKind.allCases)
    func enqueueIsAllOrNothing(kind: StoreKind) async throws {
        let repos = try await kind.make()
        var bad = outboxItem("x2")
        bad.pushType = "no-such-type"  // a token cannot be malformed any more: DeviceToken refuses it
        await #expect(throws: PushStoreError.self) { try await repos.outbox.enqueue([outboxItem("x1"), bad]) }
        await #expect(throws: PushStoreError.duplicateID("d")) {
            try await repos.outbox.enqueue([outboxItem("d"), outboxItem("d")])
        }
        try await repos.outbox.enqueue([outboxItem("d")])
        await #expect(throws: PushStoreError.duplicateID("d")) {
            try await repos.outbox.enqueue([outboxItem("e"), outboxItem("d")])
        }
        #expect(try await repos.outbox.depth() == 1)
        #expect(try await repos.outbox.item(id: "x1") == nil)
        #expect(try await repos.outbox.item(id: "e") == nil)
        if let rows = try await repos.rowCount("outbox") { #expect(rows == 1) }
    }

    @Test(arguments: StoreKind.allCases)
    func claimTakesDueRowsOldestFirstOnce(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([
            outboxItem("late", now: at(5)), outboxItem("first", now: at(0)),
            outboxItem("second", now: at(1)), outboxItem("third", now: at(1)),
        ])
        let batch = try await outbox.claim(limit: 2, now: at(2))
        #expect(batch.map(\.id) == ["first", "second"])
        #expect(batch.allSatisfy { $0.state == .inFlight && $0.attempts == 1 && $0.updatedAt == at(2) })
        #expect(try await outbox.claim(limit: 10, now: at(2)).map(\.id) == ["third"])
        #expect(try await outbox.claim(limit: 10, now: at(4.999)).isEmpty)
        #expect(try await outbox.claim(limit: 10, now: at(5)).map(\.id) == ["late"])
        #expect(try await outbox.claim(limit: 0, now: at(9)).isEmpty)
        #expect(try await outbox.counts()[.inFlight] == 4)
        #expect(try await outbox.depth() == 4)
        #expect(try await outbox.pendingCounts() == [.queued: 0, .inFlight: 4])
        // The first enqueued ("late", created at 5 s) is the oldest, whatever the due times.
        #expect(try await outbox.oldestPendingEnqueuedAt() == at(5))
    }

    @Test(arguments: StoreKind.allCases)
    func completeRecordsOutcomesOfInFlightRowsOnly(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([outboxItem("ok"), outboxItem("no"), outboxItem("idle")])
        _ = try await outbox.claim(limit: 2, now: t0)
        let states = try await outbox.complete(
            [
                done("ok", .accepted(apnsUniqueID: "u-1")),
                done("no", .rejected(status: 410, reason: "Unregistered")),
                done("idle", .accepted(apnsUniqueID: nil)),
                done("ghost", .rejected(status: 400, reason: "BadTopic")),
            ], now: at(1))
        #expect(states == ["ok": .accepted, "no": .rejected])
        let ok = try #require(try await outbox.item(id: "ok"))
        #expect(ok.state == .accepted && ok.lastStatus == 200 && ok.apnsUniqueID == "u-1" && ok.updatedAt == at(1))
        let no = try #require(try await outbox.item(id: "no"))
        #expect(no.state == .rejected && no.lastStatus == 410 && no.lastReason == .rejected(.unregistered))
        #expect(try await outbox.item(id: "idle")?.state == .queued)
        // A late second answer for a finished row changes nothing.
        #expect(try await outbox.complete([done("ok", .rejected(status: 400, reason: "BadTopic"))], now: at(2)).isEmpty)
        #expect(try await outbox.item(id: "ok")?.state == .accepted)
        #expect(try await outbox.depth() == 1)
        #expect(try await outbox.pendingCounts() == [.queued: 1, .inFlight: 0])
    }

    @Test(arguments: StoreKind.allCases)
    func retryBacksOffExponentiallyThenFails(kind: StoreKind) async throws {
        let outbox = try await kind.make(retryPolicy: OutboxRetryPolicy(maxAttempts: 4, baseDelay: .seconds(1), maxDelay: .seconds(300))).outbox
        try await outbox.enqueue([outboxItem("r")])
        var now = t0
        for (attempt, delay) in [(1, 1.0), (2, 2.0), (3, 4.0)] {
            let claimed = try await outbox.claim(limit: 1, now: now)
            #expect(claimed.map(\.attempts) == [attempt])
            let state = try await outbox.complete([done("r", .retry(status: 503, reason: "ServiceUnavailable"), attempt: attempt)], now: now)
            #expect(state == ["r": .queued])
            #expect(try await outbox.pendingCounts() == [.queued: 1, .inFlight: 0])
            let item = try #require(try await outbox.item(id: "r"))
            #expect(item.nextAttemptAt == now.addingTimeInterval(delay))
            #expect(item.lastStatus == 503 && item.lastReason == .rejected(.serviceUnavailable))
            #expect(try await outbox.claim(limit: 1, now: now.addingTimeInterval(delay - 0.001)).isEmpty)
            now = now.addingTimeInterval(delay)
        }
        #expect(try await outbox.claim(limit: 1, now: now).map(\.attempts) == [4])
        let final = try await outbox.complete([done("r", .retry(status: nil, reason: "connection reset"), attempt: 4)], now: now)
        #expect(final == ["r": .failed])
        let item = try #require(try await outbox.item(id: "r"))
        #expect(item.state == .failed && item.lastStatus == nil && item.lastReason == .transportError)
        #expect(try await outbox.depth() == 0)
    }

    @Test func backoffIsCappedAndJitterIsDeterministic() {
        let plain = OutboxRetryPolicy()
        #expect(plain.maxAttempts == 8)
        #expect([1, 2, 3, 9, 10, 40].map { plain.delay(afterAttempt: $0, id: "a") } == [1, 2, 4, 256, 300, 300].map { Duration.seconds($0) })
        let jittered = OutboxRetryPolicy(jitter: 0.5)
        let a = jittered.delay(afterAttempt: 5, id: "row-a")
        #expect(a == jittered.delay(afterAttempt: 5, id: "row-a"))
        #expect(a > .seconds(8) && a <= .seconds(16))
        let spread = Set((0..<20).map { jittered.delay(afterAttempt: 5, id: "row-\($0)") })
        #expect(spread.count > 10)
    }

    @Test(arguments: StoreKind.allCases)
    func expiredRowsAreNeverSentLate(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        let nowSeconds = Int(t0.timeIntervalSince1970)
        try await outbox.enqueue([
            outboxItem("past", expiration: nowSeconds - 1), outboxItem("edge", expiration: nowSeconds),
            outboxItem("future", expiration: nowSeconds + 60), outboxItem("once", expiration: 0),
            outboxItem("none"),
        ])
        let claimed = try await outbox.claim(limit: 10, now: t0)
        #expect(claimed.map(\.id) == ["edge", "future", "once", "none"])
        #expect(claimed.expired == ["past"], "the claim names what it expired")
        let past = try #require(try await outbox.item(id: "past"))
        #expect(past.state == .expired && past.attempts == 0)
        // Retried rows: the 0-expiration one may not be tried twice; the future one expires meanwhile.
        try await outbox.complete(claimed.map { OutboxCompletion($0, .retry(status: 429, reason: "TooManyRequests")) }, now: t0)
        let again = try await outbox.claim(limit: 10, now: at(61))
        #expect(again.map(\.id) == ["none"])
        #expect(Set(again.expired) == ["future", "once", "edge"])
        #expect(try await outbox.item(id: "once")?.state == .expired)
        #expect(try await outbox.item(id: "future")?.state == .expired)
        #expect(try await outbox.item(id: "edge")?.state == .expired)
        #expect(try await outbox.counts()[.expired] == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func expiredRowsDoNotUseUpTheClaimLimit(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        let past = Int(t0.timeIntervalSince1970) - 10
        try await outbox.enqueue(
            (0..<5).map { outboxItem("old\($0)", expiration: past) } + [
                outboxItem("a", now: at(1)),
                outboxItem("b", now: at(1)),
            ])
        #expect(try await outbox.claim(limit: 2, now: at(2)).map(\.id) == ["a", "b"])
        #expect(try await outbox.counts()[.expired] == 5)
    }

    @Test(arguments: StoreKind.allCases)
    func recoverInFlightRequeuesClaimedRows(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([outboxItem("a"), outboxItem("b"), outboxItem("c")])
        _ = try await outbox.claim(limit: 2, now: t0)
        #expect(try await outbox.recoverInFlight() == 2)
        #expect(try await outbox.counts()[.queued] == 3)
        let reclaimed = try await outbox.claim(limit: 3, now: t0)
        #expect(reclaimed.map(\.id) == ["a", "b", "c"] && reclaimed.map(\.attempts) == [2, 2, 1])
    }

    @Test(arguments: StoreKind.allCases)
    func purgeDeletesOnlyOldTerminalRows(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([outboxItem("done"), outboxItem("fresh"), outboxItem("waiting")])
        _ = try await outbox.claim(limit: 2, now: t0)
        try await outbox.complete([done("done", .accepted(apnsUniqueID: nil))], now: at(10))
        try await outbox.complete([done("fresh", .rejected(status: 400, reason: "BadTopic"))], now: at(100))
        #expect(try await outbox.purge(olderThan: at(50), limit: 10) == 1)
        #expect(try await outbox.item(id: "done") == nil)
        #expect(try await outbox.item(id: "fresh") != nil)
        #expect(try await outbox.item(id: "waiting") != nil)
    }

    @Test(arguments: StoreKind.allCases)
    func largeBatchesRoundTripAndDuplicatesFailWhole(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([outboxItem("taken")])
        await #expect(throws: PushStoreError.duplicateID("taken")) {
            try await outbox.enqueue((0..<150).map { outboxItem("n\($0)", token: $0) } + [outboxItem("taken")])
        }
        #expect(try await outbox.depth() == 1)
        try await outbox.enqueue((0..<1_000).map { outboxItem("m\($0)", push: "big", token: $0, now: at(Double($0) / 1_000)) })
        let claimed = try await outbox.claim(limit: 2_000, now: at(5))
        #expect(claimed.map(\.id) == ["taken"] + (0..<1_000).map { "m\($0)" })
        let states = try await outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(6))
        #expect(states.count == 1_001 && Set(states.values) == [.accepted])
        #expect(try await outbox.counts()[.accepted] == 1_001)
        #expect(try await outbox.depth() == 0)
        #expect(try await outbox.pendingCounts() == [.queued: 0, .inFlight: 0])
        #expect(try await outbox.oldestPendingEnqueuedAt() == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func everyAcceptedRowKeepsItsOwnUniqueID(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        // More rows than one UPDATE takes, mixing sandbox answers (a unique id each), answers without
        // one, rejections and a row no longer in flight.
        let count = 600
        try await outbox.enqueue((0..<count).map { outboxItem("r\($0)", push: "many", token: $0) })
        let claimed = try await outbox.claim(limit: count, now: at(1))
        #expect(claimed.count == count)
        #expect(try await outbox.complete([done("r0", .accepted(apnsUniqueID: "first"))], now: at(1)) == ["r0": .accepted])
        let outcomes: [OutboxCompletion] = (0..<count).map { n in
            switch n % 5 {
            case 3: done("r\(n)", .accepted(apnsUniqueID: nil))
            case 4: done("r\(n)", .rejected(status: 400, reason: "BadDeviceToken"))
            default: done("r\(n)", .accepted(apnsUniqueID: "u-\(n)"))
            }
        }
        let states = try await outbox.complete(outcomes, now: at(2))
        #expect(states.count == count - 1 && states["r0"] == nil)
        for item in try await outbox.items(pushID: "many") {
            let n = try #require(Int(item.id.dropFirst()))
            switch n {
            case 0:
                #expect(item.apnsUniqueID == "first" && item.updatedAt == at(1))
            case _ where n % 5 == 3:
                #expect(item.state == .accepted && item.apnsUniqueID == nil && item.updatedAt == at(2))
            case _ where n % 5 == 4:
                #expect(item.state == .rejected && item.lastReason == .rejected(.badDeviceToken) && item.apnsUniqueID == nil)
            default:
                #expect(item.state == .accepted && item.lastStatus == 200 && item.apnsUniqueID == "u-\(n)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func firstOutcomeForAnIDWins(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([outboxItem("a"), outboxItem("b")])
        _ = try await outbox.claim(limit: 2, now: t0)
        let states = try await outbox.complete(
            [
                done("a", .retry(status: 500, reason: "InternalServerError")),
                done("a", .accepted(apnsUniqueID: nil)),
                done("b", .rejected(status: 400, reason: "BadTopic")),
                done("b", .accepted(apnsUniqueID: "u")),
            ], now: t0)
        #expect(states == ["a": .queued, "b": .rejected])
        #expect(try await outbox.item(id: "b")?.apnsUniqueID == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func expirationIsComparedInWholeSeconds(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        let second = Int(t0.timeIntervalSince1970)
        try await outbox.enqueue([outboxItem("e", expiration: second)])
        #expect(try await outbox.claim(limit: 1, now: at(0.999)).map(\.id) == ["e"])
        try await outbox.complete([done("e", .retry(status: 429, reason: "TooManyRequests"))], now: at(0.999))
        #expect(try await outbox.claim(limit: 1, now: at(2)).isEmpty)
        #expect(try await outbox.item(id: "e")?.state == .expired)
    }
}
