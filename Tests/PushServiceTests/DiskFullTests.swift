import APNSMock
import Foundation
import JSON
import PushHTTP
import PushService
import TestSupport
import Testing

@Suite("a full disk")
struct DiskFullTests {
    static func push(_ count: Int) -> JSONValue {
        ["tokens": .array((0..<count).map { _ in .string(ServiceHarness.randomToken()) }), "alert": "walk?", "environment": "development"]
    }

    @Test(
        "SQLite on a full filesystem: posts get 503 storage_full with Retry-After, /healthz 503; outcomes APNs gave meanwhile are kept and written once space returns, nothing sent twice"
    )
    func sqliteDiskFull() async throws {
        try await SmallFilesystem.withMounted(size: "8m") { filesystem in
            let logs = LineWaiter()
            let arrivals = LineWaiter()
            let harness = try await ServiceHarness.start(
                logger: ServiceLogger(level: .info, sink: { logs.append($0) }), directory: filesystem.path + "/data",
                configure: {
                    $0.waitTimeout = .seconds(30)
                    $0.consoleSessionSecret = "console-secret-for-tests-0123456789"
                },
                configureMock: {
                    // Answers come a second after the requests: the disk fills in between.
                    $0.latency = .fixed(.seconds(1))
                    $0.handler = { _ in
                        arrivals.append("request")
                        return nil
                    }
                })
            let client = harness.client
            let first = Task { try await client.send("POST", "/v1/pushes?wait=true", json: Self.push(20)) }
            // Every notification is claimed (written in flight) and at the mock, waiting for its answer.
            #expect(await arrivals.waitFor { $0.count >= 20 })
            let filler = try filesystem.fill()

            for _ in 0..<5 {
                let refused = try await client.send("POST", "/v1/pushes", json: Self.push(20))
                #expect(refused.status == 503, "\(refused.status) \(refused.text)")
                #expect(refused.errorCode == "storage_full")
                #expect(refused.headers["retry-after"] == "5")
            }
            // The console's send form is refused the same way, on the form, not with a 500.
            let visit = ConsoleVisit(harness.server)
            await visit.signIn(ServiceHarness.apiKey)
            let form = await visit.request("GET", "/console/send")
            let sent = await visit.request(
                "POST", "/console/send",
                form: [
                    ("csrf", ConsoleVisit.csrf(form) ?? ""), ("target", "token"), ("token", ServiceHarness.randomToken()),
                    ("title", "walk?"), ("environment", "development"),
                ])
            #expect(sent.status == 503, "\(sent.status) \(sent.text.prefix(300))")
            #expect(sent.text.contains("storage_full"))
            #expect(sent.headers.contains { $0.name == "Retry-After" && $0.value == "5" })
            let health = try await client.send("GET", "/healthz")
            #expect(health.status == 503)
            #expect(health.json?["status"]?.stringValue == "storage_full")
            #expect(health.json?["database"]?.stringValue == "storage_full")
            // The answers the mock gave for the first push cannot be written either: kept, tried again.
            #expect(await logs.waitFor { $0.contains { $0.contains("outbox.complete_failed") } })
            let metrics = try await client.send("GET", "/metrics")
            #expect(metrics.text.contains("push_store_writable 0"))
            #expect(!metrics.text.contains(#"push_store_write_failures_total{reason="storage_full"} 0"#))
            #expect(!metrics.text.contains("outbox_complete_retries_total 0"))

            // Space returns: the first push settles as APNs answered it, without being sent again.
            try FileManager.default.removeItem(atPath: filler)
            let settled = try await first.value
            #expect(settled.status == 200)
            let states = settled.json?["notifications"]?.arrayValue?.compactMap { $0["state"]?.stringValue }
            #expect(states == Array(repeating: "accepted", count: 20), "\(settled.text)")
            let records = harness.mock.records()
            #expect(records.count == 20)
            #expect(Set(records.map(\.apnsID)).count == 20)

            // Writes succeed again, so /healthz comes back once the hold after the last refusal is over. The
            // hold is a time, not an event: ask until it answers 200, for at most 20 s.
            _ = try await poll("/healthz 200 after space returned", within: .seconds(20), every: .milliseconds(200)) {
                (try? await client.send("GET", "/healthz"))?.status == 200 ? true : nil
            }
            let accepted = try await client.send("POST", "/v1/pushes?wait=true", json: Self.push(5))
            #expect(accepted.status == 200)
            await harness.stop()
        }
    }

    @Test(
        "PostgreSQL with the service's database in a tablespace on a full filesystem: 503 storage_full (53100) with Retry-After, /healthz 503; every accepted push settles once space returns, nothing sent twice",
        .timeLimit(.minutes(2)))
    func postgresDiskFull() async throws {
        // A server of the test's own: its data directory (and WAL) on a disk with room, the service's
        // database in a tablespace on the small filesystem. Not the shared test cluster: its checkpoints
        // would fail to write this database's pages while the filesystem is full, and so would every other
        // test's CREATE DATABASE (which waits for a checkpoint).
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("push-pg-full-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try PrivatePostgres.giveToPostgres(root)
        let server = try await PrivatePostgres.create(in: root)
        do {
            try await SmallFilesystem.withMounted(size: "24m", options: "uid=postgres,gid=postgres,mode=0700") { filesystem in
                do {
                    let created = await server.psql("CREATE TABLESPACE small LOCATION '\(filesystem.path)'")
                    #expect(created.status == 0, "\(created.output)")
                    let database = await server.psql("CREATE DATABASE push TABLESPACE small")
                    #expect(database.status == 0, "\(database.output)")
                    try await Self.postgresScenario(url: server.url(database: "push"), filesystem: filesystem)
                } catch {
                    await server.stop()
                    throw error
                }
                await server.stop()
            }
        } catch {
            await server.stop()
            throw error
        }
    }

    static func postgresScenario(url: String, filesystem: SmallFilesystem) async throws {
        let arrivals = LineWaiter()
        let harness = try await ClusterHarness.start(
            instances: 1, configure: { $0.waitTimeout = .seconds(60) },
            configureMock: {
                $0.latency = .fixed(.seconds(1))
                $0.handler = { _ in
                    arrivals.append("request")
                    return nil
                }
            }, databaseURL: url)
        let client = harness.client(0)
        let first = Task { try await client.send("POST", "/v1/pushes?wait=true", json: Self.push(20)) }
        #expect(await arrivals.waitFor { $0.count >= 20 })
        let filler = try filesystem.fill()

        // PostgreSQL still fits rows in the free room of pages it has, so a post may be stored; one that
        // needs a new page is refused. Every answer is one or the other, never a 500.
        var accepted = 0
        var refused = 0
        var healthWhileFull: TestHTTPClient.Response?
        for _ in 0..<8 {
            let response = try await client.send("POST", "/v1/pushes", json: Self.push(200))
            if response.status == 202 {
                accepted += 200
                continue
            }
            #expect(response.status == 503, "\(response.status) \(response.text)")
            #expect(response.errorCode == "storage_full", "\(response.text)")
            #expect(response.headers["retry-after"] == "5")
            refused += 1
            if healthWhileFull == nil { healthWhileFull = try await client.send("GET", "/healthz") }
        }
        #expect(refused > 0)
        #expect(healthWhileFull?.status == 503)
        #expect(healthWhileFull?.json?["status"]?.stringValue == "storage_full")
        let metrics = try await client.send("GET", "/metrics")
        #expect(!metrics.text.contains(#"push_store_write_failures_total{reason="storage_full"} 0"#))

        try FileManager.default.removeItem(atPath: filler)
        let settled = try await first.value
        #expect(settled.status == 200)
        let states = settled.json?["notifications"]?.arrayValue?.compactMap { $0["state"]?.stringValue }
        #expect(states == Array(repeating: "accepted", count: 20), "\(settled.text)")
        // Every notification of an accepted post reaches the mock, each once.
        let expected = 20 + accepted
        try await awaitEvent("\(expected) notifications accepted by the mock", within: .seconds(60)) { [mock = harness.mock] in
            await mock.waitForAccepted(count: expected)
        }
        let records = harness.mock.records()
        #expect(records.count == expected)
        #expect(Set(records.map(\.apnsID)).count == expected)
        await harness.stop()
    }

    @Test(
        "PostgreSQL whose WAL cannot be written stops (PANIC): no 500, Retry-After on every refusal; once it is back with room, every accepted push settles and nothing is sent twice",
        .timeLimit(.minutes(3)))
    func postgresWALFull() async throws {
        // A server of its own, its whole data directory on the small filesystem (the shared test cluster
        // must not be the one that stops), with 1 MB WAL segments so that recovery fits once space returns.
        try await SmallFilesystem.withMounted(size: "48m", options: "uid=postgres,gid=postgres,mode=0700") { filesystem in
            let server = try await PrivatePostgres.create(in: filesystem.path)
            do {
                try await Self.walScenario(server, filesystem: filesystem)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }

    static func walScenario(_ server: PrivatePostgres, filesystem: SmallFilesystem) async throws {
        let arrivals = LineWaiter()
        let harness = try await ClusterHarness.start(
            instances: 1, configure: { $0.waitTimeout = .seconds(90) },
            configureMock: {
                $0.latency = .fixed(.seconds(1))
                $0.handler = { _ in
                    arrivals.append("request")
                    return nil
                }
            }, databaseURL: server.url)
        let client = harness.client(0)
        let first = Task { try await client.send("POST", "/v1/pushes?wait=true", json: Self.push(20)) }
        #expect(await arrivals.waitFor { $0.count >= 20 })
        let filler = try filesystem.fill()
        // WAL and nothing else, until the server cannot write it: PostgreSQL stops (PANIC), every
        // connection breaks, and the server stays down (`restart_after_crash` off, `PrivatePostgres`).
        var stopped = false
        for _ in 0..<64 where !stopped {
            stopped = await server.psql("SELECT pg_logical_emit_message(true, 'p', repeat('x', 250000))").status != 0
        }
        #expect(stopped)

        // Whatever the server does meanwhile, each post is stored (202) or refused with 503 and Retry-After.
        var accepted = 0
        for _ in 0..<3 {
            let response = try await client.send("POST", "/v1/pushes", json: Self.push(20))
            if response.status == 202 {
                accepted += 20
                continue
            }
            #expect(response.status == 503, "\(response.status) \(response.text)")
            #expect(["database_unavailable", "storage_full"].contains(response.errorCode ?? ""), "\(response.text)")
            #expect(response.headers["retry-after"] != nil)
        }

        // While it is down the instance reports it; space returns and the server is started again (systemd's
        // Restart= would): it recovers from its WAL, the instance reconnects and writes the outcomes it kept.
        _ = try await poll("the postmaster gone after its PANIC", within: .seconds(60)) { await server.isStopped() ? true : nil }
        #expect(try await client.send("GET", "/healthz").status == 503, "/healthz while the server is down")
        try FileManager.default.removeItem(atPath: filler)
        let restarted = await server.start()
        #expect(restarted.status == 0, "\(restarted.output)")
        let settled = try await first.value
        #expect(settled.status == 200)
        let states = settled.json?["notifications"]?.arrayValue?.compactMap { $0["state"]?.stringValue }
        #expect(states == Array(repeating: "accepted", count: 20), "\(settled.text)")
        let after = try await client.send("POST", "/v1/pushes?wait=true", json: Self.push(5))
        #expect(after.status == 200)
        #expect(after.json?["notifications"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "accepted" } == true, "\(after.text)")
        let records = harness.mock.records()
        #expect(records.count == 25 + accepted)
        #expect(Set(records.map(\.apnsID)).count == 25 + accepted)
        await harness.stop()
    }
}
