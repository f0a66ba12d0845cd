import APNSMock
import Foundation
import JSON
import PushService
import TestSupport
import Testing

/// A PostgreSQL primary with a synchronous streaming standby (`PostgresReplicaPair`), the instances on a
/// multi-host URL with `target_session_attrs=read-write`: the primary is lost and the standby promoted.
@Suite("push-server through a PostgreSQL failover", .serialized)
struct PostgresFailoverTests {
    @Test(
        "primary stopped hard under load, standby promoted: 503 with Retry-After while there is no primary, the instances reconnect by themselves, every 202 delivered",
        .timeLimit(.minutes(2)))
    func hardStopFailover() async throws {
        let pair = try await PostgresReplicaPair.start()
        let harness = try await ClusterHarness.start(
            instances: 2,
            configure: { configuration in
                configuration.databaseCallTimeout = .seconds(5)
                configuration.outboxLease = .seconds(10)
            }, databaseURL: pair.url)
        let ledger = FailoverLedger()
        // One post of 10 tokens, sent again with its Idempotency-Key after each 503 until it is accepted.
        // The client retries every 100 ms: the service announces nothing when it can take the post again.
        @Sendable func post(_ number: Int) async throws {
            let tokens = (0..<10).map { _ in ServiceHarness.randomToken() }
            let client = harness.client(number)
            let pushID = try await poll("post \(number) accepted", within: .seconds(90), every: .milliseconds(100)) { () -> String? in
                let response = try await client.send(
                    "POST", "/v1/pushes", json: ["tokens": .array(tokens.map { .string($0) }), "alert": "failover", "environment": "development"],
                    headers: ["Idempotency-Key": "failover-\(number)"])
                if response.status == 202 { return response.json?["push_id"]?.stringValue ?? "" }
                // While there is no primary: 503 with Retry-After; just after, a claim of a request the
                // failover cut may still be held (409 idempotency_in_progress, Retry-After) until it is released.
                #expect(
                    response.status == 503 || (response.status == 409 && response.errorCode == "idempotency_in_progress"),
                    "\(response.status) \(response.text)")
                #expect(response.headers["retry-after"] != nil)
                await ledger.refused()
                return nil
            }
            await ledger.accepted(tokens, pushID: pushID)
        }
        // Before the fault: 10 posts.
        _ = try await ClusterHarness.concurrently(10, width: 4) { try await post($0) }

        // Under load: 30 more posts while the primary is stopped hard and the standby promoted.
        let load = Task { try await ClusterHarness.concurrently(30, width: 4) { try await post(10 + $0) } }
        try await pair.stopPrimaryHard()
        // No primary: the API and /healthz say 503 database_unavailable with Retry-After.
        let refused = try await harness.client(0).send(
            "POST", "/v1/pushes", json: ["tokens": .array([.string(ServiceHarness.randomToken())]), "alert": "x", "environment": "development"])
        #expect(refused.status == 503 && refused.errorCode == "database_unavailable", "\(refused.status) \(refused.text)")
        #expect(refused.headers["retry-after"] != nil)
        let health = try await harness.client(1).send("GET", "/healthz")
        #expect(health.status == 503)
        let inherited = try await pair.promoteStandby()
        #expect(inherited == PostgresReplicaPair.standbyName, "the promoted standby inherited synchronous_standby_names (the trap)")
        _ = try await load.value

        let tokens = await ledger.tokens
        #expect(tokens.count == 40 * 10)
        // Every acknowledged notification reaches the mock (lost 0); resends after the failover are counted.
        try await awaitEvent("every acknowledged notification accepted by the mock", within: .seconds(60)) { [mock = harness.mock] in
            while true {
                // The count first: an acceptance after it ends the wait below at once.
                let count = mock.counters().accepted
                let accepted = Set(mock.records().filter(\.isAccepted).map(\.token))
                if tokens.subtracting(accepted).isEmpty { return }
                await mock.waitForAccepted(count: count + 1)
            }
        }
        let accepted = harness.mock.records().filter(\.isAccepted).map(\.token)
        let lost = tokens.subtracting(accepted)
        #expect(lost.isEmpty, "\(lost.count) acknowledged notifications lost")
        // Each post is one push: a retry after an unknown outcome got the original push, never a second one.
        let pushIDs = await ledger.pushIDs
        #expect(Set(pushIDs).count == 40)
        let rows = try await pair.query("SELECT count(*), count(DISTINCT push_id) FROM outbox", port: pair.standbyPort)
        #expect(rows == ["\(40 * 10)|40"], "outbox rows and pushes on the new primary: \(rows)")
        let duplicates = accepted.count - Set(accepted).count
        let refusals = await ledger.refusals
        print("failover: \(refusals) answers 503 during the failover, \(duplicates) notifications sent twice")
        await harness.stop()
        await pair.stop()
    }

    @Test(
        "a commit whose wait for the synchronous standby is cancelled: 503, the rows are stored, and the retry with the Idempotency-Key returns the original push",
        .timeLimit(.minutes(2)))
    func cancelledSynchronousReplicationWait() async throws {
        let pair = try await PostgresReplicaPair.start()
        // A short call deadline: the pool cancels a commit's wait for the standby after 3 s.
        let harness = try await ClusterHarness.start(
            instances: 1, configure: { $0.databaseCallTimeout = .seconds(3) }, databaseURL: pair.url)
        // The standby goes away: every commit on the primary now waits for it.
        try await pair.stopStandby()
        let tokens = (0..<5).map { _ in ServiceHarness.randomToken() }
        let body: JSONValue = ["tokens": .array(tokens.map { .string($0) }), "alert": "sync", "environment": "development"]
        let key = ["Idempotency-Key": "sync-wait-1"]
        let first = try await harness.client(0).send("POST", "/v1/pushes", json: body, headers: key)
        #expect(first.status == 503 && first.errorCode == "database_unavailable", "\(first.status) \(first.text)")
        #expect(first.headers["retry-after"] != nil)
        // Yet the rows are committed on the primary: "not stored" would have been wrong.
        let stored = try await pair.query("SELECT count(*), count(DISTINCT push_id) FROM outbox", port: pair.primaryPort)
        #expect(stored == ["5|1"], "rows on the primary after the 503: \(stored)")
        // A retry while the standby is still away cannot be confirmed either: 503 again, nothing added.
        let second = try await harness.client(0).send("POST", "/v1/pushes", json: body, headers: key)
        #expect(second.status == 503, "\(second.status) \(second.text)")
        // The operator restores commits (here: no synchronous standby any more); the retry returns the
        // original push, and no second one exists.
        try await pair.psql("ALTER SYSTEM RESET synchronous_standby_names", port: pair.primaryPort, database: "postgres")
        try await pair.psql("SELECT pg_reload_conf()", port: pair.primaryPort, database: "postgres")
        let third = try await harness.client(0).send("POST", "/v1/pushes", json: body, headers: key)
        #expect(third.status == 202, "\(third.status) \(third.text)")
        #expect(third.headers["idempotent-replayed"] == "true")
        let pushID = try #require(third.json?["push_id"]?.stringValue)
        let after = try await pair.query("SELECT count(*), min(push_id::text) FROM outbox", port: pair.primaryPort)
        #expect(after == ["5|\(pushID)"], "rows after the retry: \(after), answered \(pushID)")
        let delivered = await waitFor("the push delivered", within: .seconds(30)) { [mock = harness.mock] in
            await mock.waitForAccepted(count: 5)
            return true
        }
        #expect(delivered)
        await harness.stop()
        await pair.stop()
    }
}

/// What the load saw: the tokens and push ids of accepted posts, and how many answers were 503.
private actor FailoverLedger {
    var tokens: Set<String> = []
    var pushIDs: [String] = []
    var refusals = 0
    func accepted(_ new: [String], pushID: String) {
        tokens.formUnion(new)
        pushIDs.append(pushID)
    }
    func refused() { refusals += 1 }
}
