import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// A push stored once (`PostgresSchema.outboxPushes`): the step from one row per notification with rows in
/// every state, what an enqueue writes, and which notifications get an outcome row.
@Suite("PostgreSQL outbox pushes stored once")
struct PostgresOutboxPushesTests {
    /// The outcome rows (ids, in `seq` order) and the pushes and ranges.
    private static func tables(_ database: PostgresDatabase) async throws -> (outcomes: [String], pushes: Int, ranges: Int) {
        try await database.pool.withConnection { db in
            (
                try db.query("SELECT id FROM outbox_state ORDER BY seq").map { $0.string(at: 0) },
                try db.query("SELECT count(*) FROM outbox_pushes")[0].int(at: 0),
                try db.query("SELECT count(*) FROM outbox_segments")[0].int(at: 0)
            )
        }
    }

    /// Rows of the previous version (queued by the range, in flight under another instance's lease, a
    /// range some of whose rows ended, retried, accepted with and without an apns-unique-id, rejected, a
    /// channel row) read back alike after the step, and are claimed, fenced, completed and purged.
    @Test func rowsOfThePreviousVersionAreClaimedCompletedAndRead() async throws {
        let (url, old, steps) = try await databaseBefore(PostgresSchema.outboxPushes)
        #expect(steps == PostgresSchema.migrations.count - 2)
        let t = t0.storeMillis
        let derived = "0192e7e0-0000-7000-8000-0000000a0005"
        try await old.pool.withConnection { db in
            let rows: [(id: String, apnsID: String?, channel: String?)] = [
                (derived, derived, nil), ("q2", nil, nil), ("q3", "0192e7e0-0000-7000-8000-00000000000a", nil),
                ("f1", nil, nil), ("f2", nil, nil), ("a", nil, nil), ("u", nil, nil), ("r", nil, nil), ("retry", nil, nil),
                ("p0", nil, nil), ("p1", nil, nil), ("p2", nil, nil), ("ch", nil, "chan-1"),
            ]
            for (offset, row) in rows.enumerated() {
                try db.run(
                    """
                    INSERT INTO outbox_items (id, seq, push_id, token, topic, push_type, apns_id, payload, environment,
                        channel_id, created_at)
                    VALUES ($1, $2, 'push-1', $3, $4, 'alert', $5, '\\x7b7d', 'development', $6, $7)
                    """,
                    [
                        .text(row.id), .integer(Int64(offset + 1)), .text(row.channel == nil ? token(offset).hex : ""),
                        .text(topic), .text(row.apnsID), .text(row.channel), .integer(t),
                    ])
            }
            try db.run(
                """
                INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, last_status, last_reason, apns_unique_id,
                    updated_at, due, ended_at)
                VALUES ('a', 6, 'accepted', 1, $1::bigint, 200, NULL, NULL, $1::bigint + 1000, NULL, $1::bigint + 1000),
                    ('u', 7, 'accepted', 1, $1::bigint, 200, NULL, 'u-u', $1::bigint + 1000, NULL, $1::bigint + 1000),
                    ('r', 8, 'rejected', 1, $1::bigint, 410, 'Unregistered', NULL, $1::bigint + 1000, NULL, $1::bigint + 1000),
                    ('retry', 9, 'queued', 1, $1::bigint + 2000, 503, 'ServiceUnavailable', NULL, $1::bigint + 1000, $1::bigint + 2000, NULL),
                    ('p0', 10, 'accepted', 1, $1::bigint, 200, NULL, NULL, $1::bigint + 1000, NULL, $1::bigint + 1000)
                """, [.integer(t)])
            try db.run(
                """
                INSERT INTO outbox_segments (lo, hi, due, claims, remaining, owner, lease_until, updated_at)
                VALUES (1, 3, $1::bigint, 0, 3, NULL, NULL, $1::bigint), (4, 5, $1::bigint, 1, 2, 'old', $1::bigint + 10000, $1::bigint),
                    (10, 12, $1::bigint, 1, 2, 'old', $1::bigint - 1, $1::bigint), (13, 13, $1::bigint, 0, 1, NULL, NULL, $1::bigint)
                """, [.integer(t)])
        }
        old.close()

        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "new", clock: .caller)
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        // Every row a push of one; "a" and "p0" (accepted once, no apns-unique-id) lost their rows; each pending
        // row without one has a range of its own.
        var tables = try await Self.tables(database)
        #expect(tables.outcomes == ["u", "r", "retry"] && tables.pushes == 13 && tables.ranges == 8)
        let summary = { (item: OutboxItem) in
            "\(item.id.prefix(5)) \(item.state) \(item.attempts) \(item.lastStatus.map(String.init) ?? "-") "
                + "\(item.apnsUniqueID ?? "-") \(item.updatedAt.timeIntervalSince(t0))"
        }
        #expect(
            try await outbox.items(pushID: "push-1").map(summary) == [
                "0192e queued 0 - - 0.0", "q2 queued 0 - - 0.0", "q3 queued 0 - - 0.0", "f1 inFlight 1 - - 0.0",
                "f2 inFlight 1 - - 0.0", "a accepted 1 200 - 1.0", "u accepted 1 200 u-u 1.0", "r rejected 1 410 - 1.0",
                "retry queued 1 503 - 1.0", "p0 accepted 1 200 - 1.0", "p1 inFlight 1 - - 0.0", "p2 inFlight 1 - - 0.0",
                "ch queued 0 - - 0.0",
            ])
        let first = try #require(try await outbox.item(id: derived))
        #expect(first.apnsID?.rawValue == derived && first.target == .device(token(0)) && first.payload == Array("{}".utf8))
        #expect(try await outbox.item(id: "q3")?.apnsID?.rawValue == "0192e7e0-0000-7000-8000-00000000000a")
        #expect(try await outbox.item(id: "ch")?.target == .channel(APNSChannelID(rawValue: "chan-1")))
        #expect(try await outbox.item(id: "0192e7e0-0000-7000-8000-0000000a0006") == nil)
        #expect(try await outbox.counts() == [.queued: 5, .inFlight: 4, .accepted: 3, .rejected: 1, .failed: 0, .expired: 0])
        // The view shows every row as before, with the old instance's leases.
        let view = try await database.pool.withConnection { db in
            try db.query("SELECT id, state, coalesce(owner, '-') FROM outbox ORDER BY seq").map {
                "\($0.string(at: 0).prefix(5)) \($0.string(at: 1)) \($0.string(at: 2))"
            }
        }
        #expect(
            view == [
                "0192e queued -", "q2 queued -", "q3 queued -", "f1 in_flight old", "f2 in_flight old", "a accepted -",
                "u accepted -", "r rejected -", "retry queued -", "p0 accepted -", "p1 in_flight old", "p2 in_flight old",
                "ch queued -",
            ])
        // An id a stored push holds is refused, as before.
        await #expect(throws: PushStoreError.duplicateID("q2")) { try await outbox.enqueue([outboxItem("q2")]) }
        // Claims go on: the ranges whose lease ran out first, then the queued ones; the retry after its back-off,
        // f1 and f2 after the old lease.
        let claimed = try await outbox.claim(limit: 20, now: at(1))
        #expect(claimed.map { String($0.id.prefix(5)) } == ["p1", "p2", "0192e", "q2", "q3", "ch"])
        #expect(claimed.map(\.attempts) == [2, 2, 1, 1, 1, 1])
        #expect(try await outbox.complete([done("p1", .accepted(apnsUniqueID: nil), attempt: 1)], now: at(2)).isEmpty)
        let later = try await outbox.claim(limit: 20, now: at(11))
        #expect(later.map(\.id) == ["f1", "f2", "retry"] && later.map(\.attempts) == [2, 2, 2])
        let all = claimed.items + later.items
        let ended = try await outbox.complete(all.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(12))
        #expect(ended.count == 9 && ended.values.allSatisfy { $0 == .accepted })
        // Accepted at the first attempt: no row (the derived one, q2, q3, ch); after more: a row each.
        tables = try await Self.tables(database)
        #expect(tables.outcomes == ["f1", "f2", "u", "r", "retry", "p1", "p2"] && tables.ranges == 0)
        #expect(try await outbox.counts() == [.queued: 0, .inFlight: 0, .accepted: 12, .rejected: 1, .failed: 0, .expired: 0])
        #expect(try await outbox.item(id: "q2").map(summary) == "q2 accepted 1 200 - 12.0")
        // Retention: pushes last changed before the date, whole, with their outcome rows.
        #expect(try await outbox.purge(olderThan: at(5), limit: 100) == 4)
        #expect(try await outbox.purge(olderThan: at(13), limit: 100) == 9)
        tables = try await Self.tables(database)
        #expect(tables.outcomes.isEmpty && tables.pushes == 0)
    }

    /// An enqueue writes a push once per run of derived ids (`OutboxID.makeDerived`), and a range per run
    /// due at once under one topic; an accepted notification sent once without an apns-unique-id costs no
    /// row, the others one each.
    @Test func aPushIsWrittenOnceAndOnlyOutcomesThatNeedOneGetARow() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        var random = SystemRandomNumberGenerator()
        let ids = OutboxID.makeDerived(count: 300, at: t0, using: &random)
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let items = ids.enumerated().map { offset, id in
            OutboxItem(
                id: id.id, pushID: "fan-out", token: token(offset), topic: topic, pushType: .alert, payload: payload,
                environment: .production, apnsID: id.apnsID, now: t0)
        }
        try await outbox.enqueue(items)
        var tables = try await Self.tables(database)
        #expect(tables.outcomes.isEmpty && tables.pushes == 1 && tables.ranges == 1)
        // Enqueued again from the middle: refused, nothing stored.
        await #expect(throws: PushStoreError.duplicateID(ids[150].id)) { try await outbox.enqueue(Array(items[150...])) }
        #expect(try await Self.tables(database).pushes == 1)
        let claimed = try await outbox.claim(limit: 300, now: t0)
        #expect(claimed.map(\.id) == ids.map(\.id) && claimed.map(\.target) == items.map(\.target))
        #expect(claimed.allSatisfy { $0.apnsID?.rawValue == $0.id && $0.state == .inFlight && $0.attempts == 1 })
        // The claimed items share their push's payload: one buffer.
        let buffers = Set(claimed.map { $0.payload.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } })
        #expect(buffers.count == 1)
        let outcomes = claimed.enumerated().map { offset, item in
            switch offset {
            case 0: OutboxCompletion(item, .accepted(apnsUniqueID: "u-0"))
            case 1: OutboxCompletion(item, .rejected(status: 400, reason: "BadDeviceToken"))
            case 2: OutboxCompletion(item, .retry(status: 503, reason: "ServiceUnavailable"))
            default: OutboxCompletion(item, .accepted(apnsUniqueID: nil))
            }
        }
        let states = try await outbox.complete(outcomes, now: at(1))
        #expect(states.count == 300 && states[ids[3].id] == .accepted && states[ids[2].id] == .queued)
        tables = try await Self.tables(database)
        #expect(tables.outcomes == [ids[0].id, ids[1].id, ids[2].id] && tables.pushes == 1 && tables.ranges == 0)
        #expect(try await outbox.counts() == [.queued: 1, .inFlight: 0, .accepted: 298, .rejected: 1, .failed: 0, .expired: 0])
        #expect(try await outbox.item(id: ids[299].id)?.updatedAt == at(1))
        #expect(try await outbox.pendingByTopic().map(\.queued) == [1])
        // A push with a pending notification is kept whole by retention.
        #expect(try await outbox.purge(olderThan: at(100), limit: 10) == 0)
    }

    /// Outcomes of one range arriving in separate batches, in either order (as a busy worker can see them):
    /// each counts, and the range ends once both have.
    @Test(arguments: [false, true]) func aRangesOutcomesInSeparateBatchesEachCount(rejectedFirst: Bool) async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        var random = SystemRandomNumberGenerator()
        let ids = OutboxID.makeDerived(count: 2, at: t0, using: &random)
        let items = ids.enumerated().map { offset, id in
            OutboxItem(
                id: id.id, pushID: "two", token: token(offset), topic: topic, pushType: .alert, payload: Array("{}".utf8),
                environment: .production, apnsID: id.apnsID, now: t0)
        }
        try await outbox.enqueue(items)
        let claimed = try await outbox.claim(limit: 10, now: t0)
        #expect(claimed.count == 2)
        let accepted = OutboxCompletion(claimed[1], .accepted(apnsUniqueID: nil))
        let rejected = OutboxCompletion(claimed[0], .rejected(status: 400, reason: "BadDeviceToken"))
        let order = rejectedFirst ? [rejected, accepted] : [accepted, rejected]
        for step in order.indices {
            let expected: OutboxState = order[step].id == ids[0].id ? .rejected : .accepted
            let states = try await outbox.complete([order[step]], now: at(Double(1 + step)))
            #expect(states == [order[step].id: expected])
        }
        #expect(try await outbox.items(pushID: "two").map(\.state) == [.rejected, .accepted])
        #expect(try await Self.tables(database).ranges == 0)
    }
}
