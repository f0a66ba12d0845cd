import PushStore

extension PushRepositories {
    /// The repositories of one SQL database: those written once for both databases (users, devices, drops,
    /// mate requests, webhooks, channels, Live Activity tokens) over `database`, beside the outbox and the
    /// idempotency keys each database configures its own way. Every repository is still named: the
    /// backends' constructors name theirs, this one the shared.
    init<Database: SQLDropDatabase>(
        sql database: Database, outbox: any OutboxRepository, idempotency: SQLIdempotencyRepository<Database>
    ) {
        self.init(
            users: SQLUserRepository(database: database), devices: SQLDeviceRepository(database: database),
            outbox: outbox, drops: SQLDropRepository(database: database),
            mateRequests: SQLMateRequestRepository(database: database), idempotency: idempotency, database: database,
            webhooks: SQLWebhookRepository(database: database), channels: SQLChannelRepository(database: database),
            activityTokens: SQLActivityTokenRepository(database: database))
    }
}
