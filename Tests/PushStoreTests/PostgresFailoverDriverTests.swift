import Foundation
import PostgresDriver
import TestSupport
import Testing

/// What the driver does when the primary is lost: errors that mean "no primary here" are unavailable, and a
/// primary that stops answering without a reset is noticed within the call deadline by the pool and by an
/// idle listener, both then reaching the promoted standby through the multi-host URL.
@Suite("PostgreSQL driver across a failover", .serialized)
struct PostgresFailoverDriverTests {
    @Test("read-only (25006), a cancelled synchronous-replication wait and a call past its deadline are unavailable")
    func unavailableErrors() {
        let readOnly = PostgresError(
            kind: .statement, function: "PQexecPrepared", sqlState: "25006",
            message: "ERROR:  cannot execute INSERT in a read-only transaction")
        #expect(readOnly.isReadOnly && readOnly.isUnavailable)
        let unnamed = PostgresError(kind: .statement, function: "PQexec", message: "cannot execute NOTIFY in a read-only transaction")
        #expect(unnamed.isUnavailable)
        #expect(PostgresError(kind: .commitNotReplicated, function: "COMMIT", message: "m").isUnavailable)
        #expect(PostgresError(kind: .timedOut, function: "PostgresPool", message: "m").isUnavailable)
        #expect(!PostgresError(kind: .statement, function: "PQexec", sqlState: "23505", message: "duplicate").isUnavailable)
    }

    @Test(
        "a frozen primary (SIGSTOP): the pool's call fails within its deadline, the listener notices, both reach the promoted standby",
        .timeLimit(.minutes(2)))
    func frozenPrimary() async throws {
        let pair = try await PostgresReplicaPair.start()
        // A frozen host takes connect_timeout per new connection before libpq tries the next one.
        let url = pair.url + "&connect_timeout=2"
        let pool = PostgresPool(conninfo: url, size: 1, callTimeout: .seconds(2))
        let port = try await pool.withConnection { try $0.query("SELECT inet_server_port()")[0].int(at: 0) }
        #expect(port == pair.primaryPort)
        let listener = try await PostgresListener.start(conninfo: url, channels: ["failover_check"])
        let before = listener.generation("failover_check")

        try pair.freezePrimary()
        let start = ContinuousClock.now
        do {
            _ = try await pool.withConnection { try $0.query("SELECT 1").count }
            Issue.record("a call on a frozen primary returned")
        } catch let error as PostgresError {
            #expect(error.kind == .timedOut && error.isUnavailable, "\(error)")
        }
        let noticed = ContinuousClock.now - start
        // The deadline (2 s), then the cancel request's grace (2 s), then the cut.
        #expect(noticed < .seconds(8), "noticed after \(noticed)")

        try await pair.promoteStandby()
        let after = try await awaitEvent("the pool on the promoted standby", within: .seconds(30)) {
            while true {
                if let port = try? await pool.withConnection({ try $0.query("SELECT inet_server_port()")[0].int(at: 0) }) {
                    return port
                }
            }
        }
        #expect(after == pair.standbyPort)
        // The idle listener pings, gets no answer, connects again (to the new primary) and bumps its channels.
        let generation = try await awaitEvent("the listener connected again", within: .seconds(60)) {
            await listener.wait(on: "failover_check", after: before)
        }
        #expect(generation > before)
        // Notifications flow through the new primary.
        let next = listener.generation("failover_check")
        try await pair.psql("NOTIFY failover_check", port: pair.standbyPort)
        let notified = try await awaitEvent("a notification through the new primary", within: .seconds(30)) {
            await listener.wait(on: "failover_check", after: next)
        }
        #expect(notified > next)
        try pair.killPrimary()
        listener.stop()
        pool.close()
        await pair.stop()
    }
}
