import APNSCore
import Foundation
import TestSupport
import Testing

@testable import PushStore

/// Claims that touch no index (`PostgresSchema.outboxDue`): the step from the two-table outbox with rows in
/// it, and claims, renewals and completions on the new columns.
@Suite("PostgreSQL outbox claims as HOT updates")
struct PostgresOutboxDueTests {
    /// Rows of each state written under the previous version get `due` (pending) or `ended_at` (final), and
    /// claims, take-overs, completions and the purge go on from them.
    @Test func rowsOfThePreviousVersionGetTheirDueTimeAndEnd() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let previous = Array(PostgresSchema.migrations.prefix { $0.name != PostgresSchema.outboxDue.name })
        #expect(previous.count == PostgresSchema.migrations.count - 1)
        let old = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "old", migrations: previous)
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

        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "new")
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

    /// A claim and a lease renewal are HOT updates (no new index entry); a completion takes a finished row
    /// out of `outbox_due` and a retried one back in at its next attempt.
    @Test func claimsAndRenewalsAreHOTAndCompletionsMoveTheDueTime() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a")
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        try await outbox.enqueue((0..<20).map { outboxItem("r\($0)", token: $0) })
        let parameters: [PostgresValue] = [
            .integer(t0.storeMillis), .integer(Int64(t0.timeIntervalSince1970)), .integer(20), .text("a"), .integer(at(60).storeMillis),
        ]
        let (claimed, hot, updated) = try await database.pool.transaction { db in
            let counters = """
                SELECT pg_stat_get_xact_tuples_hot_updated('outbox_state'::regclass),
                    pg_stat_get_xact_tuples_updated('outbox_state'::regclass)
                """
            let before = try db.query(counters)[0]
            let (hot0, updated0) = (before.int(at: 0), before.int(at: 1))
            let rows = try db.query(PostgresOutboxRepository.claimSQL, parameters).count
            let counts = try db.query(
                """
                SELECT pg_stat_get_xact_tuples_hot_updated('outbox_state'::regclass),
                    pg_stat_get_xact_tuples_updated('outbox_state'::regclass)
                """)[0]
            return (rows, counts.int(at: 0) - hot0, counts.int(at: 1) - updated0)
        }
        #expect(claimed == 20 && updated == 20 && hot == 20)
        // What the repository's claim does with them; the renewal is HOT as well.
        let items = try await outbox.claim(limit: 20, now: t0)
        #expect(items.count == 0)
        let renewed = try await database.pool.transaction { db in
            let hot = "SELECT pg_stat_get_xact_tuples_hot_updated('outbox_state'::regclass)"
            let before = try db.query(hot)[0].int(at: 0)
            let ids = (0..<20).map { Optional("r\($0)") }
            _ = try db.query(
                PostgresOutboxRepository.renewSQL,
                [.textArray(ids), .integerArray(ids.map { _ in 1 }), .integer(at(90).storeMillis), .text("a"), .integer(at(30).storeMillis)])
            return try db.query(hot)[0].int(at: 0) - before
        }
        #expect(renewed == 20)
        let results = try await outbox.complete(
            [done("r0", .accepted(apnsUniqueID: nil)), done("r1", .retry(status: 503, reason: "ServiceUnavailable"))], now: at(40))
        #expect(results == ["r0": .accepted, "r1": .queued])
        let due = try await database.pool.withConnection { db in
            try db.query("SELECT id, due, next_attempt_at, ended_at FROM outbox_state WHERE id IN ('r0', 'r1') ORDER BY id").map {
                [$0.isNull(at: 1) ? nil : $0.int64(at: 1), $0.int64(at: 2), $0.isNull(at: 3) ? nil : $0.int64(at: 3)]
            }
        }
        #expect(due[0][0] == nil && due[0][2] == at(40).storeMillis)
        #expect(due[1][0] == due[1][1] && due[1][0]! > at(40).storeMillis && due[1][2] == nil)
        // The retried row comes back at its next attempt, not before; the rest stay held.
        #expect(try await outbox.claim(limit: 20, now: at(40.5)).isEmpty)
        #expect(try await outbox.claim(limit: 20, now: Date(storeMillis: due[1][1]!)).map(\.id) == ["r1"])
    }
}
