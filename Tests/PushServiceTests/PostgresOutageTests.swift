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
        _ = try await ClusterHarness.concurrently(10, width: 4) { _ in try await post().status }

        // Every acknowledged notification reaches the mock.
        let tokens = await acknowledged.tokens
        #expect(tokens.count >= 30 * 50 - 10 * 50)
        await harness.mock.waitForAccepted(count: tokens.count)
        let delivered = Set(harness.mock.records().filter(\.isAccepted).map(\.token))
        #expect(tokens.isSubset(of: delivered), "\(tokens.subtracting(delivered).count) acknowledged notifications lost")
        await harness.stop()
    }
}

/// The tokens of acknowledged posts.
private actor Acknowledged {
    var tokens: Set<String> = []
    func add(_ new: [String]) { tokens.formUnion(new) }
}
