import PushStore

extension PushServiceConfiguration {
    /// The outbox's retry schedule: `retry_max_attempts`, `retry_base_delay_s`, `retry_max_delay_s`, 20% jitter.
    public var retryPolicy: OutboxRetryPolicy {
        OutboxRetryPolicy(
            maxAttempts: retryMaxAttempts, baseDelay: retryBaseDelaySeconds,
            maxDelay: retryMaxDelaySeconds, jitter: 0.2)
    }

    /// Opens the store this configuration names and returns its repositories: today the SQLite database
    /// at `resolvedDatabasePath` (migrated, with rows a crash left in flight put back in the queue).
    public func openRepositories() throws -> PushRepositories {
        try .sqlite(path: resolvedDatabasePath, retryPolicy: retryPolicy)
    }
}
