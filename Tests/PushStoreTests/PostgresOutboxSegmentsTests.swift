import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Pending rows kept by the range (`PostgresSchema.outboxSegments`): ranges split at a claim's limit, taken
/// over whole or in part after their lease, fenced, renewed and counted down, with two instances on one
/// database.
@Suite("PostgreSQL outbox ranges")
struct PostgresOutboxSegmentsTests {
    /// The ranges as (first id, last id, attempts, owner or "-", rows without a state row), in `seq` order,
    /// and how many of them disagree with the rows they cover (`remaining` against the rows without a state
    /// row, which the chaos run checks too).
    private static func ranges(_ database: PostgresDatabase) async throws -> (ranges: [String], wrong: Int) {
        try await database.pool.withConnection { db in
            let ranges = try db.query(
                """
                SELECT (SELECT id FROM outbox WHERE seq = g.lo), (SELECT id FROM outbox WHERE seq = g.hi),
                    g.claims::text, coalesce(g.owner, '-'), g.remaining::text
                FROM outbox_segments g ORDER BY g.lo
                """
            ).map { row in (0..<5).map { row.string(at: Int32($0)) }.joined(separator: " ") }
            let wrong = try db.query(PostgresOutboxRepository.miscountedRangesSQL)[0].int(at: 0)
            return (ranges, wrong)
        }
    }

    /// Instances "a" and "b" on one new database, with leases of 10 s.
    private static func twoInstances() async throws -> (a: PostgresOutboxRepository, b: PostgresOutboxRepository) {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller)
        let b = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "b", clock: .caller)
        return (PostgresOutboxRepository(database: a, lease: .seconds(10)), PostgresOutboxRepository(database: b, lease: .seconds(10)))
    }

    @Test func rangesSplitAtTheLimitAndAreTakenOverFencedAndCountedDown() async throws {
        let (a, b) = try await Self.twoInstances()
        let databaseA = a.database
        try await a.enqueue((0..<10).map { outboxItem("r\($0)", token: $0) })
        // Instance a takes 4 of the 10: the range is cut after them.
        #expect(try await a.claim(limit: 4, now: t0).map(\.id) == ["r0", "r1", "r2", "r3"])
        var state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["r0 r3 1 a 4", "r4 r9 0 - 6"] && state.wrong == 0)
        #expect(try await a.pendingCounts() == [.queued: 6, .inFlight: 4])
        // Two of a's rows get their outcome; the range counts down.
        let first = try await a.complete([done("r0", .accepted(apnsUniqueID: "u0")), done("r1", .accepted(apnsUniqueID: nil))], now: at(1))
        #expect(first == ["r0": .accepted, "r1": .accepted])
        state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["r0 r3 1 a 2", "r4 r9 0 - 6"] && state.wrong == 0)
        // While a's lease lives, b takes queued rows only (cutting the second range); after it, a's two
        // unsettled rows first, whole, then the queued ones.
        #expect(try await b.claim(limit: 3, now: at(5)).map(\.id) == ["r4", "r5", "r6"])
        let takenOver = try await b.claim(limit: 3, now: at(11))
        #expect(takenOver.map(\.id) == ["r2", "r3", "r7"])
        #expect(takenOver.map(\.attempts) == [2, 2, 1])
        state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["r0 r3 2 b 2", "r4 r6 1 b 3", "r7 r7 1 b 1", "r8 r9 0 - 2"] && state.wrong == 0)
        // a's late outcome and renewal for a row b took over change nothing; b's land.
        #expect(try await a.complete([done("r2", .accepted(apnsUniqueID: nil), attempt: 1)], now: at(12)).isEmpty)
        #expect(try await a.renewLeases([OutboxHold(id: "r3", attempt: 1)], now: at(12)).isEmpty)
        #expect(try await b.renewLeases([OutboxHold(id: "r3", attempt: 2), OutboxHold(id: "r4", attempt: 1)], now: at(12)) == ["r3", "r4"])
        #expect(try await a.item(id: "r2")?.state == .inFlight)
        let retried = try await b.complete(
            [done("r2", .retry(status: 503, reason: "ServiceUnavailable"), attempt: 2), done("r4", .accepted(apnsUniqueID: nil))], now: at(13))
        #expect(retried == ["r2": .queued, "r4": .accepted])
        state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["r0 r3 2 b 1", "r4 r6 1 b 2", "r7 r7 1 b 1", "r8 r9 0 - 2"] && state.wrong == 0)
        // b dies: after its lease, a takes its rows over. The first range now has state rows inside it (r0,
        // r1 final, r2 retried), so its cut looks the rows up: a limit of 2 takes r3 from it and r5.
        let second = try await a.claim(limit: 2, now: at(30))
        #expect(second.map(\.id) == ["r3", "r5"] && second.map(\.attempts) == [3, 2])
        state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["r0 r3 3 a 1", "r4 r5 2 a 1", "r6 r6 1 b 1", "r7 r7 1 b 1", "r8 r9 0 - 2"] && state.wrong == 0)
        // Every row reads back with the state of what governs it.
        let items = try await a.items(pushID: "push-1")
        #expect(
            items.map { "\($0.id) \($0.state) \($0.attempts)" } == [
                "r0 accepted 1", "r1 accepted 1", "r2 queued 2", "r3 inFlight 3", "r4 accepted 1", "r5 inFlight 2",
                "r6 inFlight 1", "r7 inFlight 1", "r8 queued 0", "r9 queued 0",
            ])
        #expect(items[0].apnsUniqueID == "u0" && items[0].updatedAt == at(1))
        #expect(try await a.counts() == [.queued: 3, .inFlight: 4, .accepted: 3, .rejected: 0, .failed: 0, .expired: 0])
        #expect(try await a.oldestPendingEnqueuedAt() == t0)
        // a restarts: its own holds go back to the queue (one range row for both of its ranges' rows).
        #expect(try await a.recoverInFlight() == 2)
        #expect(try await a.pendingCounts() == [.queued: 5, .inFlight: 2])
        // Everything ends; the last outcome of each range deletes it.
        let rest = try await a.claim(limit: 10, now: at(60))
        #expect(Set(rest.map(\.id)) == ["r2", "r3", "r5", "r6", "r7", "r8", "r9"])
        let ended = try await a.complete(rest.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(61))
        #expect(ended.count == 7)
        state = try await Self.ranges(databaseA)
        #expect(state.ranges.isEmpty && state.wrong == 0)
        #expect(try await a.depth() == 0)
        #expect(try await a.oldestPendingEnqueuedAt() == nil)
        // Outcome rows only for what needed one: r0's apns-unique-id, r2's retry, and the rows accepted after
        // a take-over (r3, r5, r6, r7); r1, r4, r8 and r9, accepted at their first attempt, have none.
        let outcomeRows = try await databaseA.pool.withConnection { db in
            try db.query("SELECT id FROM outbox_state ORDER BY seq").map { $0.string(at: 0) }
        }
        #expect(outcomeRows == ["r0", "r2", "r3", "r5", "r6", "r7"])
    }

    /// Outcomes carrying their claims' receipts (`OutboxReceipt`) reach their rows by its keys, fenced as those
    /// found by id: an outcome that came before is left out (the batch goes again without it), a row of a range
    /// cut after its lease ran out is no longer held by the receipt's range, and a row claimed on its own is
    /// reached by its `seq`.
    @Test func outcomesWithReceiptsReachTheirClaimsAndRepeatsAreLeftOut() async throws {
        let (a, b) = try await Self.twoInstances()
        let databaseA = a.database
        try await a.enqueue((0..<6).map { outboxItem("q\($0)", token: $0) })
        let claimA = try await a.claim(limit: 6, now: t0)
        let lo = try #require(claimA.first?.receipt.sequence)
        #expect(claimA.map(\.receipt.range) == Array(repeating: Optional(lo), count: 6))
        #expect(claimA.map(\.receipt.sequence) == (0..<6).map { Optional(lo + Int64($0)) })
        let first = claimA[0..<2].map { OutboxCompletion($0, .accepted(apnsUniqueID: "u\($0.id)")) }
        #expect(try await a.complete(first, now: at(1)) == ["q0": .accepted, "q1": .accepted])
        // The same outcomes again, alone and beside a new one: left out, counted once.
        #expect(try await a.complete(first, now: at(2)).isEmpty)
        let mixed = [
            OutboxCompletion(claimA[0], .accepted(apnsUniqueID: nil)), OutboxCompletion(claimA[2], .retry(status: 503, reason: "ServiceUnavailable")),
        ]
        #expect(try await a.complete(mixed, now: at(2)) == ["q2": .queued])
        var state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["q0 q5 1 a 3"] && state.wrong == 0)
        #expect(try await a.item(id: "q0")?.apnsUniqueID == "uq0")
        // a's lease runs out; b takes one row over, which cuts the range: q4 and q5 are no longer in the range
        // a's receipts name, so a's late outcome for q4 is stale though nobody claimed q4 since.
        #expect(try await b.claim(limit: 1, now: at(20)).map(\.id) == ["q3"])
        state = try await Self.ranges(databaseA)
        #expect(state.ranges == ["q0 q3 2 b 1", "q4 q5 1 a 2"] && state.wrong == 0)
        #expect(try await a.complete([OutboxCompletion(claimA[4], .accepted(apnsUniqueID: nil))], now: at(21)).isEmpty)
        #expect(try await a.complete([OutboxCompletion(claimA[3], .accepted(apnsUniqueID: nil))], now: at(21)).isEmpty)
        #expect(try await a.item(id: "q4")?.state == .inFlight)
        // b takes the rest: q4 and q5 taken over, q2 (retried, claimed on its own) when due.
        let rest = try await b.claim(limit: 10, now: at(600))
        #expect(Set(rest.map(\.id)) == ["q2", "q3", "q4", "q5"])
        let retriedReceipt = try #require(rest.first { $0.id == "q2" }?.receipt)
        #expect(retriedReceipt.range == nil && retriedReceipt.sequence == lo + 2)
        let ended = try await b.complete(rest.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(601))
        #expect(ended == ["q2": .accepted, "q3": .accepted, "q4": .accepted, "q5": .accepted])
        state = try await Self.ranges(databaseA)
        #expect(state.ranges.isEmpty && state.wrong == 0)
        #expect(try await a.counts() == [.queued: 0, .inFlight: 0, .accepted: 6, .rejected: 0, .failed: 0, .expired: 0])
        #expect(try await a.items(pushID: "push-1").map(\.attempts) == [1, 1, 2, 3, 2, 2])
    }

    /// A row of a range whose expiration passed ends `expired` at its claim (its state row written, the range
    /// counted down); rows of a range that was attempted before and carry no expiration expire too.
    @Test func expiredRowsOfARangeEndAtTheClaim() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(10))
        let second = Int(t0.timeIntervalSince1970)
        try await outbox.enqueue([
            outboxItem("late", token: 1, expiration: second - 1), outboxItem("fine", token: 2, expiration: second + 3_600),
            outboxItem("once", token: 3, expiration: 0),
        ])
        let claim = try await outbox.claim(limit: 2, now: t0)
        #expect(claim.expired == ["late"] && claim.map(\.id) == ["fine", "once"])
        // The claim cut the range after two rows ("late" expired among them), then took "once" from the rest.
        var state = try await Self.ranges(database)
        #expect(state.ranges == ["late fine 1 a 1", "once once 1 a 1"] && state.wrong == 0)
        #expect(try await outbox.item(id: "late")?.state == .expired)
        // The claim's owner dies; the next claim finds "once" attempted before: it expires, "fine" goes again.
        let again = try await outbox.claim(limit: 5, now: at(20))
        #expect(again.expired == ["once"] && again.map(\.id) == ["fine"])
        state = try await Self.ranges(database)
        #expect(state.ranges == ["late fine 2 a 1"] && state.wrong == 0)
        #expect(try await outbox.counts()[.expired] == 2)
    }
}
