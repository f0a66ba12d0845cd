import Foundation
import PushStore

/// Deletes finished rows older than the `RetentionPolicy` ages, in batches, from a background task. Each
/// batch is one short transaction; between batches the job yields, so requests never wait behind a purge.
/// Several instances on one database may run it at once: each row is deleted once.
struct RetentionJob: Sendable {
    let repositories: PushRepositories
    let policy: RetentionPolicy
    let metrics: ServiceMetrics
    let logger: ServiceLogger

    /// One pass over every table at `now`; returns the rows deleted per table.
    @discardableResult
    func run(now: Date) async throws -> [RetentionTable: Int] {
        var deleted: [RetentionTable: Int] = [:]
        let ages: [(RetentionTable, Duration)] = [
            (.outbox, policy.finalOutbox), (.mateRequests, policy.answeredMateRequest),
            // After the requests: a drop goes once its requests have.
            (.drops, policy.endedDrop),
            (.idempotencyKeys, max(policy.idempotencyKey, PushAPI.idempotencyTTL)),
            (.webhookEvents, policy.webhookEvent),
            (.activityTokens, policy.retiredActivityToken),
            // Entries out of the budget's window count for nothing any more.
            (.activityBudget, LiveActivitySettings.budgetWindow),
        ]
        for (table, age) in ages {
            let cutoff = now.addingTimeInterval(-(age / .seconds(1)))
            var total = 0
            while !Task.isCancelled {
                let count = try await purge(table, olderThan: cutoff)
                total += count
                metrics.recordPurged(table: table.rawValue, count: count)
                if count < policy.batchSize { break }
                await Task.yield()
            }
            deleted[table] = total
        }
        if deleted.values.contains(where: { $0 > 0 }) {
            logger.info("retention.purged", RetentionTable.allCases.map { ($0.rawValue, "\(deleted[$0] ?? 0)") })
        }
        return deleted
    }

    private func purge(_ table: RetentionTable, olderThan cutoff: Date) async throws -> Int {
        let limit = max(1, policy.batchSize)
        switch table {
        case .outbox: return try await repositories.outbox.purge(olderThan: cutoff, limit: limit)
        case .mateRequests: return try await repositories.mateRequests.purgeAnswered(olderThan: cutoff, limit: limit)
        case .drops: return try await repositories.drops.purgeEnded(olderThan: cutoff, limit: limit)
        case .idempotencyKeys: return try await repositories.idempotency.purge(olderThan: cutoff, limit: limit)
        case .webhookEvents: return try await repositories.webhooks.purge(olderThan: cutoff, limit: limit)
        case .activityTokens: return try await repositories.activityTokens.purgeRetired(olderThan: cutoff, limit: limit)
        case .activityBudget: return try await repositories.activityTokens.purgeBudget(olderThan: cutoff, limit: limit)
        }
    }

    /// Runs a pass every `policy.interval` until cancelled; a failed pass is logged and retried at
    /// the next interval.
    func loop() async {
        while !Task.isCancelled {
            do {
                try await run(now: Date())
            } catch {
                logger.error("retention.failed", [("error", "\(error)")])
            }
            try? await Task.sleep(for: max(.milliseconds(10), policy.interval))
        }
    }
}
