import APNSCore
import APNSMock
import Foundation
public import JSON
import PushHTTP
import PushHTTP1
import PushIO
import TestSupport

/// `push-chaos --failover`: push-server instances on a PostgreSQL primary with a synchronous streaming
/// standby (`PostgresReplicaPair`), on the multi-host URL; under load the primary is lost and the standby
/// promoted (its inherited `synchronous_standby_names` cleared, as the operating docs say). Two drills:
/// - `hard`: `pg_ctl stop -m immediate` (a crash: connections reset);
/// - `freeze`: SIGSTOP of the primary's processes (nothing answers, nothing resets), promotion, and the
///   frozen primary fenced (SIGKILL) once the instances run on the new one.
///
/// Each post (of `batchSize` tokens, with an Idempotency-Key) is sent again after any answer but 202 until
/// it is accepted. Verdict: every notification answered 202 accepted by the mock (lost 0).
public enum ChaosFailover {
    /// One drill's figures.
    public struct Drill: Sendable {
        public var name: String
        public var instances = 0
        public var notifications = 0
        public var acknowledged = 0
        public var lost = 0
        /// Notifications the mock accepted more than once (each extra acceptance counts).
        public var duplicates = 0
        /// Answers other than 202, by status.
        public var refusals: [Int: Int] = [:]
        /// Posts that failed without an HTTP answer (the connection closed or timed out).
        public var failedPosts = 0
        /// Seconds from the last 202 before the fault to the first 202 of a post sent after it.
        public var recoverySeconds = 0.0
        /// Seconds from the fault to the promotion's end.
        public var promotedAfterSeconds = 0.0
        public var inheritedSynchronousStandby = ""
        public var callTimeoutSeconds = 0.0
        public var deliveredInTime = false
        public var problems: [String] = []

        public var passed: Bool { lost == 0 && deliveredInTime && acknowledged == notifications && problems.isEmpty }

        var json: JSONValue {
            var refused: [String: JSONValue] = [:]
            for (status, count) in refusals { refused["\(status)"] = .int(Int64(count)) }
            return [
                "drill": .string(name), "instances": .int(Int64(instances)), "notifications": .int(Int64(notifications)),
                "acknowledged": .int(Int64(acknowledged)), "lost": .int(Int64(lost)), "duplicates": .int(Int64(duplicates)),
                "refusals": .object(refused), "failed_posts": .int(Int64(failedPosts)),
                "recovery_s": .double((recoverySeconds * 100).rounded() / 100),
                "promoted_after_s": .double((promotedAfterSeconds * 100).rounded() / 100),
                "inherited_synchronous_standby_names": .string(inheritedSynchronousStandby),
                "database_call_timeout_s": .double(callTimeoutSeconds), "delivered_in_time": .bool(deliveredInTime),
                "problems": .array(problems.map { .string($0) }), "passed": .bool(passed),
            ]
        }

        public var summary: String {
            "\(name): \(acknowledged)/\(notifications) acknowledged on \(instances) instances, lost \(lost), duplicates \(duplicates), "
                + "recovery \(String(format: "%.2f", recoverySeconds)) s, refusals \(refusals.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")), "
                + "failed posts \(failedPosts)\(problems.isEmpty ? "" : ", problems: \(problems.joined(separator: "; "))")"
        }
    }

    /// Runs the drills named in `drills` one after the other, each on a fresh pair and fresh instances.
    public static func run(
        _ plan: ChaosPlan, drills: [String], callTimeoutSeconds: Double, progress: @escaping @Sendable (String) -> Void
    ) async throws -> (drills: [Drill], json: JSONValue) {
        var results: [Drill] = []
        for name in drills {
            var drillPlan = plan
            drillPlan.workDirectory = plan.workDirectory + "/" + name
            results.append(try await drill(name, plan: drillPlan, callTimeoutSeconds: callTimeoutSeconds, progress: progress))
            progress("chaos-failover: " + results[results.count - 1].summary)
        }
        let json: JSONValue = [
            "run": .string("chaos-failover"), "batch": .int(Int64(plan.batchSize)), "concurrency": .int(Int64(plan.concurrency)),
            "drills": .array(results.map(\.json)), "passed": .bool(results.allSatisfy(\.passed)),
        ]
        return (results, json)
    }

    /// What the posters saw.
    private actor Ledger {
        var acknowledged: Set<String> = []
        var successes: [(sent: Date, answered: Date)] = []
        var refusals: [Int: Int] = [:]
        var failed = 0
        var next = 0
        func claim(_ total: Int) -> Int? {
            guard next < total else { return nil }
            defer { next += 1 }
            return next
        }
        func accepted(_ tokens: [String], sent: Date) {
            acknowledged.formUnion(tokens)
            successes.append((sent, Date()))
        }
        func refused(_ status: Int) { refusals[status, default: 0] += 1 }
        func failedPost() { failed += 1 }
        func waitForAcknowledged(_ count: Int) async {
            while acknowledged.count < count { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }

    private static func drill(
        _ name: String, plan: ChaosPlan, callTimeoutSeconds: Double, progress: @escaping @Sendable (String) -> Void
    ) async throws -> Drill {
        var plan = plan
        // APNs behaves: every duplicate and loss here is the database's.
        plan.goAwayEvery = 0
        plan.abruptCloseEvery = 0
        plan.tooManyRequestsRate = 0
        plan.serviceUnavailableRate = 0
        let stage = try ChaosRun.Stage(plan)
        let mock = stage.mock
        defer { mock.stop() }
        var result = Drill(name: name)
        result.instances = plan.instances
        result.notifications = plan.pushes
        result.callTimeoutSeconds = callTimeoutSeconds

        let pair = try await PostgresReplicaPair.start()
        progress("chaos-failover \(name): primary on \(pair.primaryPort), synchronous standby on \(pair.standbyPort)")
        let configPath = plan.workDirectory + "/failover.json"
        try Data(
            #"{"outbox": {"lease_s": \#(plan.lease / .seconds(1))}, "database_pool_size": 4, "database_call_timeout_s": \#(callTimeoutSeconds)}"#
                .utf8
        ).write(to: URL(fileURLWithPath: configPath))
        var servers: [PushServerProcess] = []
        for index in 0..<plan.instances {
            let data = plan.workDirectory + "/data-\(index + 1)"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            servers.append(
                try await PushServerProcess.start(
                    binary: plan.serverBinary,
                    arguments: stage.arguments + [
                        "--database", pair.url, "--config", configPath, "--port", "0", "--instance-id", "failover-\(index + 1)",
                        "--data-dir", data,
                    ],
                    logPath: plan.workDirectory + "/logs/failover-\(index + 1).log"))
        }
        let ports = servers.map(\.port)
        let loop = EventLoop(name: "chaos-failover")
        defer { loop.shutdown() }
        let client = HTTPClient(loop: loop, tls: nil, maxResponseBytes: 16 * 1_024 * 1_024)
        let ledger = Ledger()
        let posts = (plan.pushes + plan.batchSize - 1) / plan.batchSize
        let nonce = UInt64.random(in: 0...UInt64.max)
        let apiKey = stage.apiKey
        let batchSize = plan.batchSize
        let total = plan.pushes
        let concurrency = plan.concurrency

        @Sendable func token(_ post: Int, _ index: Int) -> String {
            let head = String(nonce, radix: 16)
            let tail = String(post, radix: 16) + "f" + String(index, radix: 16)
            return head + String(repeating: "0", count: 64 - head.count - tail.count) + tail
        }
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        while let post = await ledger.claim(posts) {
                            let count = min(batchSize, total - post * batchSize)
                            let tokens = (0..<count).map { token(post, $0) }
                            let body: JSONValue = [
                                "tokens": .array(tokens.map { .string($0) }), "alert": "failover", "environment": "development",
                            ]
                            var attempt = 0
                            while true {
                                let port = ports[(post + attempt) % ports.count]
                                attempt += 1
                                let sent = Date()
                                do {
                                    let response = try await client.post(
                                        url: "http://127.0.0.1:\(port)/v1/pushes",
                                        headers: [
                                            ("Authorization", "Bearer \(apiKey)"), ("Content-Type", "application/json"),
                                            ("Idempotency-Key", "failover-\(nonce)-\(post)"),
                                        ],
                                        body: body.serialized(), timeout: .seconds(60))
                                    if response.status == 202 {
                                        await ledger.accepted(tokens, sent: sent)
                                        break
                                    }
                                    await ledger.refused(response.status)
                                } catch {
                                    await ledger.failedPost()
                                }
                                // The client's pace between attempts (Retry-After is 1 s; a tighter retry
                                // measures the recovery more finely).
                                try? await Task.sleep(for: .milliseconds(200))
                            }
                        }
                    }
                }
            }
        }
        // The fault once a third of the notifications is acknowledged.
        await ledger.waitForAcknowledged(plan.pushes / 3)
        let fault = Date()
        switch name {
        case "freeze":
            try pair.freezePrimary()
            progress("chaos-failover \(name): primary frozen (SIGSTOP)")
        default:
            try await pair.stopPrimaryHard()
            progress("chaos-failover \(name): primary stopped (immediate)")
        }
        // The operator notices and promotes (here after 2 s).
        try await Task.sleep(for: .seconds(2))
        result.inheritedSynchronousStandby = try await pair.promoteStandby()
        result.promotedAfterSeconds = Date().timeIntervalSince(fault)
        progress("chaos-failover \(name): standby promoted after \(String(format: "%.1f", result.promotedAfterSeconds)) s")
        if name == "freeze" {
            // Fenced once the instances work on the new primary (a success of a post sent after the fault).
            _ = try? await awaitEvent("a post accepted after the fault", within: .seconds(120)) {
                while await !ledger.successes.contains(where: { $0.sent > fault }) { try await Task.sleep(for: .milliseconds(50)) }
            }
            try? pair.killPrimary()
            progress("chaos-failover \(name): the frozen primary fenced (SIGKILL)")
        }
        await load.value

        let acknowledged = await ledger.acknowledged
        result.acknowledged = acknowledged.count
        result.refusals = await ledger.refusals
        result.failedPosts = await ledger.failed
        let successes = await ledger.successes
        let lastBefore = successes.filter { $0.answered < fault }.map(\.answered).max()
        let firstAfter = successes.filter { $0.sent > fault }.map(\.answered).min()
        if let lastBefore, let firstAfter { result.recoverySeconds = firstAfter.timeIntervalSince(lastBefore) }
        result.deliveredInTime =
            (try? await awaitEvent("every acknowledged notification accepted", within: plan.deliveryTimeout) {
                while true {
                    // The count first: an acceptance after it ends the wait below at once.
                    let count = mock.counters().accepted
                    if Set(mock.records().lazy.filter(\.isAccepted).map(\.token)).isSuperset(of: acknowledged) { return true }
                    await mock.waitForAccepted(count: count + 1)
                }
            }) ?? false
        let accepted = mock.records().filter(\.isAccepted).map(\.token)
        result.lost = acknowledged.subtracting(accepted).count
        result.duplicates = accepted.count - Set(accepted).count
        for server in servers {
            let status = server.stop(SIGTERM)
            if status != 0 { result.problems.append("an instance exited \(status)") }
        }
        await pair.stop()
        return result
    }
}
