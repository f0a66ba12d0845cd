import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import PushStoreBenchmark
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The outbox in two tables (`PostgresSchema.outboxSplit`): the step from the one-table outbox with data in
/// it, and plans that stay lookups by key whatever the planner's statistics say.
@Suite("PostgreSQL outbox in two tables")
struct PostgresOutboxSplitTests {
    /// The version before the split, with a row in each state the old table held, each column set.
    @Test func rowsOfThePreviousVersionKeepEveryColumnAndTheirLeases() async throws {
        let (url, old, steps) = try await databaseBefore(PostgresSchema.outboxSplit)
        #expect(steps < PostgresSchema.migrations.count - 1)
        let t = t0.storeMillis
        let expiry = Int64(t0.timeIntervalSince1970) + 3_600
        try await old.pool.withConnection { db in
            let insert = """
                INSERT INTO outbox (id, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id, payload,
                    environment, state, attempts, next_attempt_at, last_status, last_reason, apns_unique_id, created_at,
                    updated_at, owner, lease_until, channel_id)
                VALUES ($1, 'push-1', $2, $3, 'alert', $4, $5, $6, $7, $8, 'development', $9, $10, $11, $12, $13, $14, $15,
                    $16, $17, $18, $19)
                """
            let payload = PostgresValue.bytes(Array(#"{"aps":{"alert":"hi"}}"#.utf8))
            let rows: [[PostgresValue]] = [
                [
                    .text("q"), .text(token(1).hex), .text(topic), .integer(10), .integer(expiry), .text("walk"),
                    .text("0192e7e0-0000-7000-8000-00000000000a"),
                    payload, .text("queued"), .integer(0), .integer(t), .null, .null, .null, .integer(t), .integer(t), .null, .null, .null,
                ],
                [
                    .text("f"), .text(token(2).hex), .text(topic), .null, .null, .null, .null,
                    payload, .text("in_flight"), .integer(1), .integer(t), .null, .null, .null, .integer(t), .integer(t), .text("old"),
                    .integer(t + 10_000), .null,
                ],
                [
                    .text("a"), .text(token(3).hex), .text(topic), .integer(5), .null, .null, .null,
                    payload, .text("accepted"), .integer(1), .integer(t), .integer(200), .null, .text("u-a"), .integer(t), .integer(t + 1), .null,
                    .null, .null,
                ],
                [
                    .text("r"), .text(token(4).hex), .text(topic), .null, .integer(0), .null, .null,
                    payload, .text("rejected"), .integer(2), .integer(t), .integer(410), .text("Unregistered"), .null, .integer(t), .integer(t + 2),
                    .null, .null, .null,
                ],
                [
                    .text("ch"), .text(""), .text(topic), .null, .null, .null, .null,
                    payload, .text("queued"), .integer(0), .integer(t), .null, .null, .null, .integer(t), .integer(t), .null, .null, .text("chan-1"),
                ],
                [
                    .text("late"), .text(token(5).hex), .text(topic), .null, .null, .null, .null,
                    payload, .text("queued"), .integer(3), .integer(t + 10_000), .integer(503), .text("ServiceUnavailable"), .null, .integer(t),
                    .integer(t + 3), .null, .null, .null,
                ],
            ]
            for row in rows { try db.run(insert, row) }
        }
        old.close()

        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "new", clock: .caller)
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        // Every row reads back with every column as written, in the same order.
        let items = try await outbox.items(pushID: "push-1")
        #expect(
            items.map(Self.summary) == [
                "q queued 0 +0 - - - 10 \(expiry) walk 0192e7e0-0000-7000-8000-00000000000a - +0 \(token(1).hex)",
                "f inFlight 1 +0 - - - - - - - - +0 \(token(2).hex)",
                "a accepted 1 +0 200 - u-a 5 - - - - +1 \(token(3).hex)",
                "r rejected 2 +0 410 Unregistered - - 0 - - - +2 \(token(4).hex)",
                "ch queued 0 +0 - - - - - - - chan-1 +0 ",
                "late queued 3 +10000 503 ServiceUnavailable - - - - - - +3 \(token(5).hex)",
            ])
        #expect(items.allSatisfy { $0.payload == Array(#"{"aps":{"alert":"hi"}}"#.utf8) && $0.createdAt == t0 })
        let counts = try await outbox.counts()
        #expect(counts[.queued] == 3 && counts[.inFlight] == 1 && counts[.accepted] == 1 && counts[.rejected] == 1)
        // The view keeps the old table's columns for reading by hand; the lease of the old instance is kept.
        let leases = try await database.pool.withConnection { db in
            try db.query("SELECT id, owner, lease_until FROM outbox WHERE state = 'in_flight'").map {
                "\($0.string(at: 0)) \($0.string(at: 1)) \($0.int64(at: 2))"
            }
        }
        #expect(leases == ["f old \(t + 10_000)"])
        #expect(try await database.rowCount("outbox") == 6)
        // Claims go on: the due rows now, the leased one only after its lease, the backed-off one after its
        // back-off; rows enqueued after the step come after the old ones.
        try await outbox.enqueue([outboxItem("n", now: t0)])
        #expect(try await outbox.claim(limit: 10, now: t0).map(\.id) == ["q", "ch", "n"])
        #expect(try await outbox.claim(limit: 10, now: at(9.999)).isEmpty)
        let reclaimed = try await outbox.claim(limit: 10, now: at(10.001))
        #expect(reclaimed.map(\.id) == ["f", "late"])
        #expect(reclaimed.map(\.attempts) == [2, 4])
        // The old instance's late answer is fenced off; the new claim's answer lands.
        #expect(try await outbox.complete([done("f", .accepted(apnsUniqueID: nil), attempt: 1)], now: at(11)).isEmpty)
        #expect(try await outbox.complete([done("f", .accepted(apnsUniqueID: "u-f"), attempt: 2)], now: at(11)) == ["f": .accepted])
        #expect(try await outbox.items(pushID: "push-1").last?.id == "n")
        // Final rows go from both tables.
        #expect(try await outbox.purge(olderThan: at(0.5), limit: 10) == 2)
        #expect(try await outbox.item(id: "a") == nil)
        #expect(try await outbox.item(id: "r") == nil)
        let left = try await database.pool.withConnection { db in
            [try db.query("SELECT count(*) FROM outbox_pushes")[0].int(at: 0), try db.query("SELECT count(*) FROM outbox_state")[0].int(at: 0)]
        }
        // "n", in flight, has no state row yet.
        #expect(left == [5, 4])
    }

    /// Statistics taken while every row was final (the planner then expects about one row in flight) must
    /// not turn a completion or a claim of many rows into scans: both stay lookups by key.
    @Test func claimsAndCompletionsLookRowsUpByKeyWhateverTheStatisticsSay() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database)
        _ = try await OutboxBenchmark.run(outbox: outbox, total: 3_000, batchSize: 1_000)
        try await database.pool.withConnection { db in try db.execute("ANALYZE outbox_pushes; ANALYZE outbox_state") }
        try await outbox.enqueue((0..<1_000).map { outboxItem("x\($0)", push: "later", token: $0) })
        let pickPlan = try await plan(database, PostgresOutboxRepository.pickSQL, [.integer(t0.storeMillis), .integer(1_000)])
        #expect(pickPlan.contains("Index Scan using outbox_due") && pickPlan.contains("Function Scan on outbox_claimable_segments"))
        // The ranges' cursor in `outbox_claimable_segments`, planned under the same settings.
        let rangesPlan = try await plan(
            database,
            """
            SELECT * FROM outbox_segments WHERE due <= $1 AND (owner IS NULL OR lease_until < $1)
            ORDER BY due, lo FOR UPDATE SKIP LOCKED
            """, [.integer(t0.storeMillis)])
        #expect(rangesPlan.contains("Index Scan using outbox_segments_due") && !rangesPlan.contains("Sort"), "\(rangesPlan)")
        #expect(!pickPlan.contains("Seq Scan") && !pickPlan.contains("Sort") && !pickPlan.contains("Hash"), "\(pickPlan)")
        let claimPlan = try await plan(
            database, PostgresOutboxRepository.claimRangesSQL,
            [
                .integer(t0.storeMillis), .integer(Int64(t0.timeIntervalSince1970)), .integerArray([1 << 16 + 1]), .integerArray([1]),
                .text("a"), .integer(at(60).storeMillis),
            ])
        #expect(claimPlan.contains("Index Scan using outbox_segments_pkey"))
        #expect(["Seq Scan", "Sort", "Hash", "hashed"].allSatisfy { !claimPlan.contains($0) }, "\(claimPlan)")
        // The claimed ranges' pushes, each range's read between both its bounds, also in the generic plan a
        // prepared statement switches to (which, bounded above only, walked every push below the range); with
        // pushes whose target lists the instance holds.
        for generic in [false, true] {
            let pushesPlan = try await plan(
                database, PostgresOutboxPush.coveringSQL,
                [.integerArray([1 << 16 + 1]), .integerArray([1 << 16 + 1_000]), .integerArray([1 << 16 + 1, 2 << 16])],
                generic: generic)
            #expect(pushesPlan.contains("Index Scan using outbox_pushes_pkey on outbox_pushes p"), "\(pushesPlan)")
            #expect(pushesPlan.contains("Index Cond: ((lo >= x.start) AND (lo <= x.b))"), "\(pushesPlan)")
            #expect(["Seq Scan", "Hash", "hashed", "Join Filter"].allSatisfy { !pushesPlan.contains($0) }, "\(pushesPlan)")
        }
        let claimed = try await outbox.claim(limit: 1_000, now: t0)
        #expect(claimed.count == 1_000)
        let ids = claimed.map { Optional($0.id) }
        // Outcomes with their claims' receipts and without (looked up by id), plain and repeated.
        for (seqs, ranges) in [
            (claimed.map(\.receipt.sequence), claimed.map(\.receipt.range)),
            (ids.map { _ in nil }, ids.map { _ in nil }),
        ] {
            let keys = ids.map { OutboxPushRun.key(of: $0!) }
            let completePlan = try await plan(
                database, PostgresOutcomes.sql,
                [
                    .textArray(ids), .integerArray(ids.map { _ in 1 }), .textArray(ids.map { _ in "accepted" }),
                    .integerArray(ids.map { _ in 200 }), .textArray(ids.map { _ in nil }), .textArray(ids.map { _ in nil }),
                    .integerArray(ids.map { _ in nil }), .integer(at(1).storeMillis), .integerArray(seqs),
                    .integerArray(ranges), .textArray(keys.map(\.base)), .integerArray(keys.map { Int64($0.index) }),
                    .integerArray(ids.map { _ in 1 }),
                ] + PostgresOutcomes().leavingParameters)
            if seqs[0] == nil { #expect(completePlan.contains("using outbox_pushes_by_id"), "\(completePlan)") }
            #expect(completePlan.contains("outbox_state_pkey"))
            #expect(completePlan.contains("Index Scan using outbox_segments_pkey"))
            #expect(["Seq Scan", "Hash Join", "hashed"].allSatisfy { !completePlan.contains($0) }, "\(completePlan)")
        }
        // The same outcomes by their ranges and positions (accepted at the first attempt: no row each).
        var leaving = PostgresOutcomes()
        for item in claimed {
            leaving.append(
                id: item.id, fence: 1, attempts: 1, state: .accepted, status: 200, reason: nil, uniqueID: nil, backOff: nil,
                seq: item.receipt.sequence, range: item.receipt.range)
        }
        let leavingPlan = try await plan(database, PostgresOutcomes.sql, leaving.parameters(now: .integer(at(1).storeMillis)))
        #expect(leavingPlan.contains("Index Scan using outbox_segments_pkey"))
        #expect(["Seq Scan", "Hash Join", "hashed"].allSatisfy { !leavingPlan.contains($0) }, "\(leavingPlan)")
        // The generic plans the plan cache may settle on after a statement's first runs: lookups by key too.
        let genericPick = try await plan(database, PostgresOutboxRepository.pickSQL, [.integer(t0.storeMillis), .integer(1_000)], generic: true)
        #expect(genericPick.contains("Index Scan using outbox_due") && genericPick.contains("Function Scan on outbox_claimable_segments"))
        #expect(!genericPick.contains("Seq Scan") && !genericPick.contains("Sort") && !genericPick.contains("Hash"), "\(genericPick)")
        let genericClaim = try await plan(
            database, PostgresOutboxRepository.claimRangesSQL,
            [
                .integer(t0.storeMillis), .integer(Int64(t0.timeIntervalSince1970)), .integerArray([1 << 16 + 1]), .integerArray([1]),
                .text("a"), .integer(at(60).storeMillis),
            ], generic: true)
        #expect(genericClaim.contains("Index Scan using outbox_segments_pkey"))
        #expect(["Seq Scan", "Sort", "Hash", "hashed"].allSatisfy { !genericClaim.contains($0) }, "\(genericClaim)")
        var rows = PostgresOutcomes()
        for item in claimed {
            rows.append(
                id: item.id, fence: 1, attempts: 1, state: .rejected, status: 400, reason: "BadDeviceToken", uniqueID: nil,
                backOff: nil, seq: item.receipt.sequence, range: item.receipt.range)
        }
        for outcomes in [rows, leaving] {
            let genericComplete = try await plan(
                database, PostgresOutcomes.sql, outcomes.parameters(now: .integer(at(1).storeMillis)), generic: true)
            #expect(genericComplete.contains("Index Scan using outbox_segments_pkey"))
            #expect(["Seq Scan", "Hash Join", "hashed"].allSatisfy { !genericComplete.contains($0) }, "\(genericComplete)")
        }
        #expect(try await outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(1)).count == 1_000)
    }

    /// The reads of every metrics scrape (pending counts, depth, the oldest pending row) go through
    /// `outbox_due`, which holds only pending rows, with no scan of the state table, whatever the statistics
    /// say: here they were taken while 3,000 rows were queued, which have all ended since.
    @Test func scrapesReadPendingRowsThroughTheirIndexWhateverTheStatisticsSay() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database)
        try await outbox.enqueue((0..<3_000).map { outboxItem("f\($0)", push: "first", token: $0) })
        try await database.pool.withConnection { db in try db.execute("ANALYZE outbox_pushes; ANALYZE outbox_state") }
        let first = try await outbox.claim(limit: 3_000, now: t0)
        try await outbox.complete(first.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(1))
        try await outbox.enqueue((0..<10).map { outboxItem("p\($0)", push: "later", token: $0, now: at(Double($0))) })
        _ = try await outbox.claim(limit: 4, now: at(20))
        for sql in [
            PostgresOutboxRepository.pendingCountsSQL, PostgresOutboxRepository.oldestPendingSQL,
            PostgresOutboxRepository.pendingByTopicSQL, PostgresWebhookRepository.pendingCountsSQL,
        ] {
            let plan = try await database.pool.transaction { db in
                db.readPendingRowsByIndex()
                return try db.query("EXPLAIN (COSTS OFF) " + sql).map { $0.string(at: 0) }.joined(separator: "\n")
            }
            #expect(plan.contains("using outbox_due") || plan.contains("using webhook_events_due"), "\(plan)")
            // Live ranges are read whole (they are few: one per enqueue still pending).
            #expect(!plan.contains("Seq Scan on outbox_state") && !plan.contains("Parallel"), "\(plan)")
        }
        #expect(try await outbox.pendingCounts() == [.queued: 6, .inFlight: 4])
        #expect(try await outbox.depth() == 10)
        #expect(try await outbox.oldestPendingEnqueuedAt() == at(0))
        #expect(try await outbox.counts()[.accepted] == 3_000)
    }

    /// One line with every field of `item` that a row of the old table held (times as ms after `t0`).
    private static func summary(_ item: OutboxItem) -> String {
        let fields: [String?] = [
            item.id, "\(item.state)", "\(item.attempts)", "+\(item.nextAttemptAt.storeMillis - t0.storeMillis)",
            item.lastStatus.map(String.init), item.lastReason?.rawValue, item.apnsUniqueID, item.priority.map { "\($0.rawValue)" },
            item.expiration.epochSeconds.map(String.init), item.collapseID, item.apnsID?.rawValue, item.target.channelID?.rawValue,
            "+\(item.updatedAt.storeMillis - t0.storeMillis)", item.target.deviceToken?.hex ?? "",
        ]
        return fields.map { $0 ?? "-" }.joined(separator: " ")
    }

    /// The plan of `sql` with `parameters` under the settings the repository runs it with, one line per node.
    private func plan(_ database: PostgresDatabase, _ sql: String, _ parameters: [PostgresValue], generic: Bool = false)
        async throws -> String
    {
        try await database.pool.transaction { db in
            if generic { db.executeWithNext("SET LOCAL plan_cache_mode = force_generic_plan") }
            db.executeWithNext("SET LOCAL enable_sort = off")
            db.executeWithNext("SET LOCAL enable_bitmapscan = off")
            // As the claim and the completion plan them (`PostgresConnection.lookUpByKey`).
            db.lookUpByKey()
            return try db.query("EXPLAIN (COSTS OFF) " + sql, parameters).map { $0.string(at: 0) }.joined(separator: "\n")
        }
    }
}
