import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The statements of a drop report find drops by key whatever the planner's statistics say.
///
/// While B9 ran over three instances, the plan cache settled on generic plans that hashed the whole of
/// `drops` for each report: the statistics (taken by autovacuum while the table was small and its pages not
/// yet all visible) said a scan was cheaper than a few lookups. Each report then read every drop.
@Suite("PostgreSQL drop statements under stale statistics")
struct PostgresDropPlanTests {
    @Test func reportsLookDropsUpByKeyWhateverTheStatisticsSay() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        try await database.pool.withConnection { db in
            try db.execute(
                """
                INSERT INTO drops (id, initiator_id, peer_id, state, created_at, expires_at)
                    SELECT 'd' || g, 'u' || g, 'p' || g, 'pending', g, g + 1000 FROM generate_series(1, 5000) g;
                INSERT INTO drop_engagements (user_id, drop_id) SELECT 'u' || g, 'd' || g FROM generate_series(1, 5000) g;
                ANALYZE drops; ANALYZE drop_engagements;
                UPDATE pg_class SET reltuples = 700, relallvisible = 0 WHERE relname = 'drops';
                UPDATE pg_class SET relallvisible = 0 WHERE relname = 'drop_engagements'
                """)
        }
        let statements = [
            ("pending_drops", PostgresDropTransaction.pendingDropsSQL, "'{u1,p1}'"),
            (
                "mate_requests", PostgresDropTransaction.insertRequestsSQL,
                "'{m1,m2}', '{d1,d1}', '{u1,p1}', '{p1,u1}', '{pending,pending}', '{1,1}', '{NULL,NULL}'"
            ),
        ]
        for (name, sql, arguments) in statements {
            // As the plan cache would after a few runs: one plan for any parameters.
            let unguarded = try await genericPlan(database, name: "\(name)_unguarded", sql, arguments, lookups: false)
            #expect(unguarded.contains("Seq Scan on drops"), "the statistics should mislead the planner: \(unguarded)")
            let guarded = try await genericPlan(database, name: name, sql, arguments, lookups: true)
            #expect(guarded.contains("using drops_pkey on drops"), "\(guarded)")
            #expect(!guarded.contains("Seq Scan") && !guarded.contains("Hash"), "\(guarded)")
        }
        // A group's read and its closes (`PostgresDropBatch`), under the same statistics.
        let batch = [
            ("group_state", PostgresDropBatch.stateSQL, "'{u1,p1,u2}', '{p1}', '{u1}', NULL, 3600000"),
            ("group_close", PostgresDropBatch.closeSQL, "'{d1,d2}', '{expired,cancelled}', '{NULL,NULL}', '{5,5}'"),
        ]
        for (name, sql, arguments) in batch {
            // (The closes' engagements are found by drop for the ids closed, gathered in a hash of their own.)
            let plan = try await genericPlan(database, name: name, sql, arguments, lookups: true)
            #expect(plan.contains("using drops_pkey on drops"), "\(plan)")
            #expect(!plan.contains("Seq Scan") && !plan.contains("Hash Join"), "\(plan)")
        }
    }

    /// A drop group reads its reporters with their devices by lookups, also while `users` and `devices` are
    /// freshly filled and never analyzed: the planner then took `invalidated_at IS NULL` for rare and read the
    /// whole of `devices` for every user of every group (B9 over three instances: 100–150 ms a group).
    @Test func aGroupReadsItsUsersAndDevicesByLookupsBeforeAnyAnalyze() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        try await database.pool.withConnection { db in
            try db.execute(
                """
                INSERT INTO users (id, card, created_at, updated_at)
                    SELECT 'u' || g, '{}', g, g FROM generate_series(1, 5000) g;
                INSERT INTO devices (token, topic, user_id, environment, registered_at, last_seen)
                    SELECT lpad(to_hex(g), 64, '0'), 'app', 'u' || g, 'production', g, g FROM generate_series(1, 5000) g
                """)
        }
        let ids = "'{\((1...30).map { "u\($0 * 97)" }.joined(separator: ","))}'"
        let unguarded = try await genericPlan(
            database, name: "people_unguarded", UsersWithDevicesSQL.active("= ANY ($1::text[])"), ids, lookups: true)
        #expect(unguarded.contains("Seq Scan on devices"), "the missing statistics should mislead the planner: \(unguarded)")
        let plan = try await genericPlan(database, name: "people", PostgresDropBatch.peopleSQL, ids, lookups: true)
        #expect(plan.contains("using users_pkey on users"), "\(plan)")
        #expect(plan.contains("devices_by_user"), "\(plan)")
        #expect(!plan.contains("Seq Scan") && !plan.contains("Hash"), "\(plan)")
        // The same rows as the join it replaces: each user once with each active device.
        let rows = try await database.pool.withConnection { db in
            try db.query(PostgresDropBatch.peopleSQL, [.textArray(["u1", "u2", "nobody"])]).map { $0.string(at: 2) }
        }
        #expect(rows.sorted() == ["u1", "u2"])
    }

    /// The generic plan of `sql`, prepared as `name`, in a transaction that joins by lookup when `lookups`
    /// (as the drop repository's do); one line per node.
    private func genericPlan(
        _ database: PostgresDatabase, name: String, _ sql: String, _ arguments: String, lookups: Bool
    ) async throws -> String {
        try await database.pool.transaction { db in
            if lookups { db.joinByLookup() }
            db.executeWithNext("SET LOCAL plan_cache_mode = force_generic_plan")
            try db.execute("PREPARE \(name) AS \(sql)")
            let plan = try db.query("EXPLAIN (COSTS OFF) EXECUTE \(name)(\(arguments))").map { $0.string(at: 0) }
            try db.execute("DEALLOCATE \(name)")
            return plan.joined(separator: "\n")
        }
    }
}
