import APNSMock
import Foundation
import JSON
import PushService
import TestSupport
import Testing

/// The PostgreSQL database goes away under load and comes back: `/healthz` and the API say so with 503,
/// and nothing the API acknowledged is lost.
@Suite("push-server while its PostgreSQL database is away")
struct PostgresOutageTests {
    @Test(
        "database refused and its connections terminated under load: /healthz 503, API 503 database_unavailable, delivery resumes, nothing acknowledged lost",
        .timeLimit(.minutes(2)))
    func outageUnderLoad() async throws {
        let harness = try await ClusterHarness.start(instances: 1)
        let client = harness.client(0)
        let postgres = try await PostgresTestCluster.shared()
        let name = String(harness.databaseURL.split(separator: "/").last!)
        // Only this test's database goes away (the shared cluster serves other tests): new connections
        // are refused and the open ones terminated.
        func cut() async throws {
            try await postgres.psql("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
            _ = try await postgres.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(name)'")
        }

        let acknowledged = Acknowledged()
        @Sendable func post() async throws -> TestHTTPClient.Response {
            let tokens = (0..<50).map { _ in ServiceHarness.randomToken() }
            let response = try await client.send(
                "POST", "/v1/pushes", json: ["tokens": .array(tokens.map { .string($0) }), "alert": "outage", "environment": "development"])
            if response.status == 202 { await acknowledged.add(tokens) }
            return response
        }
        // Load before the cut: 20 posts, 4 at a time.
        _ = try await ClusterHarness.concurrently(20, width: 4) { _ in try await post().status }
        try await cut()

        let health = try await client.send("GET", "/healthz")
        #expect(health.status == 503)
        #expect(health.json?["status"]?.stringValue == "unavailable")
        // Posts during the outage: each is refused with a JSON error (nothing half-accepted).
        let during = try await ClusterHarness.concurrently(10, width: 4) { _ in try await post() }
        for response in during {
            #expect(response.status == 503, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(response.errorCode == "database_unavailable")
            #expect(response.headers["retry-after"] == "1")
        }
        let read = try await client.send("GET", "/v1/users/nobody")
        #expect(read.status == 503 && read.errorCode == "database_unavailable")

        try await postgres.psql("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")
        // The first requests after the return may meet a connection terminated during the outage; the
        // pool replaces it, so within a few requests /healthz is 200 again.
        var healthy = false
        for _ in 0..<20 where !healthy {
            healthy = try await client.send("GET", "/healthz").status == 200
        }
        #expect(healthy)
        // Posts after the return: each is acknowledged, and each of their notifications reaches the mock
        // exactly once (delivery resumed, nothing sent twice).
        let before = await acknowledged.tokens
        let after = try await ClusterHarness.concurrently(10, width: 4) { _ in try await post() }
        for response in after {
            #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
        }
        let tokens = await acknowledged.tokens
        let afterTokens = tokens.subtracting(before)
        #expect(before.count == 20 * 50, "every post before the cut acknowledged")
        #expect(afterTokens.count == 10 * 50, "every post after the return acknowledged")

        // Every acknowledged notification reaches the mock: the 20 posts before the cut and the 10 after.
        #expect(tokens.count == (20 + 10) * 50)
        try await awaitEvent("every acknowledged notification accepted by the mock") { [mock = harness.mock] in
            var count = tokens.count
            while true {
                await mock.waitForAccepted(count: count)
                let accepted = mock.records().filter(\.isAccepted)
                let missing = tokens.subtracting(accepted.map(\.token)).count
                if missing == 0 { return }
                count = accepted.count + missing
            }
        }
        let accepted = harness.mock.records().filter(\.isAccepted).map(\.token)
        let delivered = Set(accepted)
        #expect(tokens.isSubset(of: delivered), "\(tokens.subtracting(delivered).count) acknowledged notifications lost")
        let timesSent = accepted.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        let afterNotOnce = afterTokens.filter { timesSent[$0] != 1 }
        #expect(afterNotOnce.isEmpty, "\(afterNotOnce.count) notifications posted after the return not delivered exactly once")
        await harness.stop()
    }
}

/// The tokens of acknowledged posts.
private actor Acknowledged {
    var tokens: Set<String> = []
    func add(_ new: [String]) { tokens.formUnion(new) }
}
