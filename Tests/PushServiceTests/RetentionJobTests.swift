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
        try await repositories.outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: t0)
        return repositories
    }

    @Test("a pass deletes every final row past its age in batches, counts them in /metrics and keeps live rows")
    func purgesInBatches() async throws {
        let repositories = try await store()
        var policy = RetentionPolicy()
        policy.finalOutboxSeconds = 60
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

    @Test("bad retention settings stop the start with a configuration error")
    func badSettings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (body, field) in [
            (#"{"retention": {"final_outbox_s": -1}}"#, "retention.final_outbox_s"),
            (#"{"retention": {"batch_size": 0}}"#, "retention.batch_size"),
            (#"{"retention": {"keep_forever": true}}"#, "keep_forever"),
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
        try #"{"retention": {"final_outbox_s": 3600, "interval_s": 5, "batch_size": 500}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        #expect(loaded.retention.finalOutboxSeconds == 3_600 && loaded.retention.intervalSeconds == 5 && loaded.retention.batchSize == 500)
    }
}
