extension PushRepositories {
    /// Fresh in-memory repositories (the twins of the SQLite ones, same rules).
    public static func inMemory(retryPolicy: OutboxRetryPolicy = .default) -> PushRepositories {
        let webhooks = InMemoryWebhookRepository()
        let outbox = InMemoryOutboxRepository(retryPolicy: retryPolicy, webhooks: webhooks)
        let drops = InMemoryDropRepository(outbox: outbox, webhooks: webhooks)
        return PushRepositories(
            users: InMemoryUserRepository(), devices: InMemoryDeviceRepository(webhooks: webhooks), outbox: outbox,
            drops: drops, mateRequests: drops, idempotency: InMemoryIdempotencyRepository(), database: InMemoryDatabase(),
            webhooks: webhooks, channels: InMemoryChannelRepository(), activityTokens: InMemoryActivityTokenRepository())
    }
}

/// `PushDatabase` for the in-memory twins: always answers, and nothing survives a restart to recover.
public struct InMemoryDatabase: PushDatabase {
    /// Always 0: memory holds no rows from a previous run.
    public var recoveredAtOpen: Int { 0 }
    /// A fresh in-memory database.
    public init() {}
    /// Never throws.
    public func ping() async throws {}
}
