import APNSCore
import Foundation
import PostgresDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// A push's notifications read back (`items(pushID:)`, what the console's push page and `GET /v1/pushes/{id}`
/// show) from one snapshot: the outcome rows and the live ranges are two statements, and a completion
/// committed between them must not make a notification it rejected read as accepted.
@Suite("PostgreSQL outbox reads in one snapshot")
struct PostgresOutboxReadSnapshotTests {
    /// The read never came to wait for the held table within 30 s.
    struct ReadDidNotWait: Error {}

    @Test func aRejectionCommittedBetweenTheReadsStatementsIsNotReadAsAccepted() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 3, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        var random = SystemRandomNumberGenerator()
        let id = try #require(OutboxID.makeDerived(count: 1, at: t0, using: &random).first)
        try await outbox.enqueue([
            OutboxItem(
                id: id.id, pushID: "race", token: token(1), topic: topic, pushType: .alert, payload: Array("{}".utf8),
                environment: .development, apnsID: id.apnsID, now: t0)
        ])
        #expect(try await outbox.claim(limit: 10, now: t0).count == 1)

        // The ranges table held by another transaction: a read stops at its second statement, after the outcome
        // rows were read. Meanwhile that transaction commits what a rejection's completion does: the outcome
        // row, and the range gone. (One connection throughout, on its own thread.)
        let reading = try await database.pool.withConnection { db in
            _ = try db.run("BEGIN")
            _ = try db.run("LOCK TABLE outbox_segments IN ACCESS EXCLUSIVE MODE")
            let reading = Task { try await outbox.items(pushID: "race") }
            let deadline = ContinuousClock.now + .seconds(30)
            while try db.query("SELECT count(*) FROM pg_locks WHERE relation = 'outbox_segments'::regclass AND NOT granted")[0]
                .int(at: 0) == 0
            {
                guard ContinuousClock.now < deadline else {
                    throw ReadDidNotWait()
                }
                _ = try db.query("SELECT pg_sleep(0.005)")
            }
            let seq = try db.query("SELECT lo FROM outbox_pushes")[0].int64(at: 0)
            let millis = at(1).storeMillis
            _ = try db.run(
                """
                INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, last_status, last_reason, updated_at, ended_at)
                VALUES ($1, $2, 'rejected', 1, $3, 400, 'BadDeviceToken', $3, $3)
                """, [.text(id.id), .integer(seq), .integer(millis)])
            _ = try db.run("DELETE FROM outbox_segments WHERE lo = $1", [.integer(seq)])
            _ = try db.run("COMMIT")
            return reading
        }

        // In flight as of the read's snapshot (not accepted: no range and no outcome row in two different ones).
        let read = try await awaitEvent("the read to end") { try await reading.value }
        #expect(read.map(\.state) == [.inFlight])
        #expect(try await outbox.items(pushID: "race").map(\.state) == [.rejected])
        #expect(try await outbox.item(id: id.id)?.lastReason == .rejected(.badDeviceToken))
    }
}
