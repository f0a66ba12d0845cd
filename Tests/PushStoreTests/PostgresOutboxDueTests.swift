import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Claims that touch no index (`PostgresSchema.outboxDue`): the step from the two-table outbox with rows in
/// it, and claims, renewals and completions on the new columns.
@Suite("PostgreSQL outbox claims as HOT updates")
struct PostgresOutboxDueTests {
    /// Rows of each state written under the previous version get `due` (pending) or `ended_at` (final), and
    /// claims, take-overs, completions and the purge go on from them.
    @Test func rowsOfThePreviousVersionGetTheirDueTimeAndEnd() async throws {
        let (url, old, steps) = try await databaseBefore(PostgresSchema.outboxDue)
        #expect(steps == PostgresSchema.migrations.count - 5)
        // As the previous version's statements left them: "q" retried (due again in a second), "f" in flight
        // under the old instance's lease, "a" accepted, "late" queued.
        let t = t0.storeMillis
        try await old.pool.withConnection { db in
            for (seq, id) in ["q", "f", "a", "late"].enumerated() {
                try db.run(
                    """
                    INSERT INTO outbox_items (id, seq, push_id, token, topic, push_type, payload, environment, created_at)
                    VALUES ($1, $2, 'push-1', $3, $4, 'alert', '\\x7b7d', 'development', $5)
                    """, [.text(id), .integer(Int64(seq + 1)), .text(token(seq).hex), .text(topic), .integer(t)])
            }
            try db.run(
                """
                INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, last_status, apns_unique_id, updated_at,
                    owner, lease_until)
                VALUES ('q', 1, 'queued', 1, $1::bigint + 2000, 503, NULL, $1 + 1000, NULL, NULL),
                    ('f', 2, 'in_flight', 1, $1, NULL, NULL, $1, 'old', $1 + 10000),
                    ('a', 3, 'accepted', 1, $1, 200, 'u-a', $1 + 1000, NULL, NULL),
                    ('late', 4, 'queued', 0, $1, NULL, NULL, $1, NULL, NULL)
                """, [.integer(t)])
        }
        old.close()

        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "new", clock: .caller)
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
        let columns = try await database.pool.withConnection { db in
            try db.query("SELECT id, state, due IS NOT NULL, ended_at FROM outbox_state ORDER BY seq").map {
                "\($0.string(at: 0)) \($0.string(at: 1)) \($0.bool(at: 2)) \($0.isNull(at: 3) ? "-" : String($0.int64(at: 3) - t0.storeMillis))"
            }
        }
        #expect(columns == ["q queued true -", "f in_flight true -", "a accepted false 1000", "late queued true -"])
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(10))
        // Due now: "late"; "q" waits for its back-off, "f" for the old instance's lease.
        #expect(try await outbox.claim(limit: 10, now: at(1.5)).map(\.id) == ["late"])
        let taken = try await outbox.claim(limit: 10, now: at(60))
        // Both leases ("f" the old instance's, "late" this one's) have run out: taken over first, then "q".
        #expect(taken.map(\.id) == ["f", "late", "q"])
        #expect(taken.map(\.attempts) == [2, 2, 2])
        // The old claim's answer is fenced off; the new one lands and ends the row.
        #expect(try await outbox.complete([done("f", .accepted(apnsUniqueID: nil), attempt: 1)], now: at(61)).isEmpty)
        #expect(try await outbox.complete([done("f", .accepted(apnsUniqueID: nil), attempt: 2)], now: at(61)) == ["f": .accepted])
        #expect(try await outbox.purge(olderThan: at(30), limit: 10) == 1)
        #expect(try await outbox.item(id: "a") == nil)
        #expect(try await outbox.purge(olderThan: at(62), limit: 10) == 1)
        #expect(try await outbox.depth() == 2)
    }

    /// A claim of new rows writes one version of their range and no state row; a completion writes each
    /// row's state row, out of `outbox_due` when finished and in it at its next attempt when retried; the
    /// retried row is then claimed and renewed by itself, in HOT updates (no new index entry).
    @Test func claimsTakeRangesAndRetriedRowsAreClaimedAndRenewedInHOTUpdates() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        try await outbox.enqueue((0..<20).map { outboxItem("r\($0)", token: $0) })
        func tables() async throws -> [String] {
            try await database.pool.withConnection { db in
                [
                    "\(try db.query("SELECT count(*) FROM outbox_state")[0].int(at: 0)) state rows",
                    try db.query("SELECT count(*), min(claims)::text, min(remaining)::text, min(owner) FROM outbox_segments").map {
                        "\($0.int(at: 0)) ranges \($0.optionalString(at: 1) ?? "-") \($0.optionalString(at: 2) ?? "-") \($0.optionalString(at: 3) ?? "-")"
                    }[0],
                ]
            }
        }
        let tables1 = try await tables().joined(separator: ", ")
        #expect(tables1 == "0 state rows, 1 ranges 0 20 -")
        let items = try await outbox.claim(limit: 20, now: t0)
        #expect(items.map(\.id) == (0..<20).map { "r\($0)" } && items.allSatisfy { $0.attempts == 1 && $0.state == .inFlight })
        let tables2 = try await tables().joined(separator: ", ")
        #expect(tables2 == "0 state rows, 1 ranges 1 20 a")
        #expect(Set(try await outbox.renewLeases((0..<20).map { OutboxHold(id: "r\($0)", attempt: 1) }, now: at(30))).count == 20)
        #expect(try await outbox.renewLeases([OutboxHold(id: "r2", attempt: 2)], now: at(30)).isEmpty)
        let results = try await outbox.complete(
            [done("r0", .accepted(apnsUniqueID: nil)), done("r1", .retry(status: 503, reason: "ServiceUnavailable"))], now: at(40))
        #expect(results == ["r0": .accepted, "r1": .queued])
        let tables3 = try await tables().joined(separator: ", ")
        // "r0", accepted at its first attempt without an apns-unique-id, costs no row (`PostgresSchema.outboxPushes`).
        #expect(tables3 == "1 state rows, 1 ranges 1 18 a")
        let due = try await database.pool.withConnection { db in
            try db.query("SELECT id, due, next_attempt_at, ended_at FROM outbox_state WHERE id = 'r1'").map {
                [$0.isNull(at: 1) ? nil : $0.int64(at: 1), $0.int64(at: 2), $0.isNull(at: 3) ? nil : $0.int64(at: 3)]
            }
        }
        #expect(due.count == 1 && due[0][0] == due[0][1] && due[0][0]! > at(40).storeMillis && due[0][2] == nil)
        // The retried row comes back at its next attempt, not before; the rest stay held.
        #expect(try await outbox.claim(limit: 20, now: at(40.5)).isEmpty)
        let retryAt = Date(storeMillis: due[0][1]!)
        let (claimed, hot, updated) = try await database.pool.transaction { db in
            let counters = """
                SELECT pg_stat_get_xact_tuples_hot_updated('outbox_state'::regclass),
                    pg_stat_get_xact_tuples_updated('outbox_state'::regclass)
                """
            let seq = try db.query("SELECT seq FROM outbox_state WHERE id = 'r1'")[0].int64(at: 0)
            let before = try db.query(counters)[0]
            let rows = try db.query(
                PostgresOutboxRepository.claimRowsSQL,
                [
                    .integer(retryAt.storeMillis), .integer(Int64(retryAt.timeIntervalSince1970)), .integerArray([seq]),
                    .integerArray([1]), .text("a"), .integer(at(100).storeMillis),
                ]
            ).map { $0.int(at: 2) }
            let renewed = try db.query(
                PostgresOutboxRepository.renewSQL,
                [
                    .textArray(["r1"]), .integerArray([2]), .integer(at(120).storeMillis), .text("a"), .integer(retryAt.storeMillis),
                    .textArray(["r1"]), .integerArray([0]),
                ]
            ).count
            let after = try db.query(counters)[0]
            return (rows + [renewed], after.int(at: 0) - before.int(at: 0), after.int(at: 1) - before.int(at: 1))
        }
        #expect(claimed == [2, 1] && updated == 2 && hot == 2)
        // The range's rows all end: its last completion deletes it.
        let rest = (2..<20).map { done("r\($0)", .accepted(apnsUniqueID: nil)) }
        #expect(try await outbox.complete(rest, now: at(41)).count == 18)
        let tables4 = try await tables().joined(separator: ", ")
        #expect(tables4 == "1 state rows, 0 ranges - - -")
        #expect(try await outbox.counts()[.accepted] == 19)
    }
}
