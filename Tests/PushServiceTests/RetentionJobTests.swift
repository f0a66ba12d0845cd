import APNSCore
import Foundation
import PushStore
import TestSupport
import Testing

@testable import PushService

@Suite("Retention job")
struct RetentionJobTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// 2,500 accepted rows and one queued row in an in-memory store.
    func store() async throws -> PushRepositories {
        let repositories = PushRepositories.inMemory()
        let token = DeviceToken(stringLiteral: String(repeating: "ab", count: 32))
        let rows = (0..<2_501).map { n in
            OutboxItem(
                id: "r\(n)", pushID: "p", token: token, topic: "com.example.app", pushType: .alert,
                payload: Array(#"{"aps":{}}"#.utf8), environment: .development, now: t0)
        }
        try await repositories.outbox.enqueue(rows)
        let claimed = try await repositories.outbox.claim(limit: 2_500, now: t0)
        try await repositories.outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsID: "", uniqueID: nil)) }, now: t0)
        return repositories
    }

    @Test("a pass deletes every final row past its age in batches, counts them in /metrics and keeps live rows")
    func purgesInBatches() async throws {
        let repositories = try await store()
        var policy = RetentionPolicy()
        policy.finalOutbox = .seconds(60)
        policy.batchSize = 1_000
        let metrics = ServiceMetrics()
        let job = RetentionJob(repositories: repositories, policy: policy, metrics: metrics, logger: .silent)
        #expect(try await job.run(now: t0.addingTimeInterval(59))[.outbox] == 0)
        let deleted = try await job.run(now: t0.addingTimeInterval(61))
        #expect(deleted[.outbox] == 2_500 && deleted[.drops] == 0)
        #expect(try await repositories.outbox.counts()[.accepted] == 0)
        #expect(try await repositories.outbox.depth() == 1)
        let text = metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains(#"push_store_purged_rows_total{table="outbox"} 2500"#))
        #expect(text.contains(#"push_store_purged_rows_total{table="idempotency_keys"} 0"#))
    }

    @Test("retired activity tokens go after their age, budget entries after the hour; both counted in /metrics")
    func purgesRetiredActivityTokensAndBudget() async throws {
        let repositories = PushRepositories.inMemory()
        let tokens = repositories.activityTokens
        for n in 0..<5 {
            let token = DeviceToken(stringLiteral: String(repeating: "0", count: 62) + String(format: "%02x", n))
            try await tokens.register(
                ActivityTokenRecord(
                    token: token, topic: "com.example.app", userID: "ana", environment: .development,
                    kind: n == 4 ? .pushToStart(attributesType: "WalkAttributes") : .update(activityID: "walk-\(n)"), registeredAt: t0))
        }
        for n in 0..<3 { try await tokens.retire(activityID: "walk-\(n)", at: t0) }
        for n in 0..<3 {
            _ = try await tokens.takePriorityBudget(activityID: "walk-3", limit: 10, window: .seconds(3600), now: t0.addingTimeInterval(Double(n)))
        }
        var policy = RetentionPolicy()
        policy.retiredActivityToken = .seconds(86_400)
        policy.batchSize = 2
        let metrics = ServiceMetrics()
        let job = RetentionJob(repositories: repositories, policy: policy, metrics: metrics, logger: .silent)
        let early = try await job.run(now: t0.addingTimeInterval(3_602))
        #expect(early[.activityTokens] == 0 && early[.activityBudget] == 2, "the budget's first two entries are out of the hour")
        let later = try await job.run(now: t0.addingTimeInterval(86_401))
        #expect(later[.activityTokens] == 3 && later[.activityBudget] == 1)
        #expect(try await tokens.tokens(userID: "ana").count == 2, "the running activity's token and the push-to-start token stay")
        let text = metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains(#"push_store_purged_rows_total{table="activity_tokens"} 3"#))
        #expect(text.contains(#"push_store_purged_rows_total{table="activity_budget"} 3"#))
    }

    @Test("bad retention settings stop the start with a configuration error")
    func badSettings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (body, field) in [
            (#"{"retention": {"final_outbox_s": -1}}"#, "retention.final_outbox_s"),
            (#"{"retention": {"batch_size": 0}}"#, "retention.batch_size: must be 1-100000"),
            (#"{"retention": {"batch_size": 100001}}"#, "retention.batch_size: must be 1-100000"),
            (#"{"database_pool_size": 257}"#, "database_pool_size: must be 1-256"),
            (#"{"retention": {"keep_forever": true}}"#, "keep_forever"),
            (#"{"retention": {"retired_activity_tokens_s": 0}}"#, "retention.retired_activity_tokens_s"),
            (#"{"live_activities": {"priority10_per_hour": -1}}"#, "live_activities.priority10_per_hour"),
            (#"{"live_activities": {"priority10_per_hour": 3601}}"#, "live_activities.priority10_per_hour"),
            (#"{"live_activities": {"priority_10": 5}}"#, "priority_10"),
        ] {
            let file = directory.appendingPathComponent("c.json").path
            try body.write(toFile: file, atomically: true, encoding: .utf8)
            #expect {
                try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
            } throws: { error in
                (error as? ConfigurationError)?.message.contains(field) == true
            }
        }
        let file = directory.appendingPathComponent("ok.json").path
        #expect(PushServiceConfiguration().liveActivities.priority10PerHour == 10)
        #expect(PushServiceConfiguration().retention.retiredActivityToken == .seconds(7 * 86_400))
        try #"""
        {"retention": {"final_outbox_s": 3600, "interval_s": 5, "batch_size": 500, "retired_activity_tokens_s": 7200},
         "live_activities": {"priority10_per_hour": 0}}
        """#.write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        #expect(loaded.retention.finalOutbox == .seconds(3_600) && loaded.retention.interval == .seconds(5) && loaded.retention.batchSize == 500)
        #expect(loaded.retention.retiredActivityToken == .seconds(7_200) && loaded.liveActivities.priority10PerHour == 0)
    }
}
