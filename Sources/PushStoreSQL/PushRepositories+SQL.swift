import PushStore

extension PushRepositories {
    /// The repositories of one SQL database: those written once for both databases (users, devices,
    /// webhooks, channels, Live Activity tokens) over `database`, beside the ones each database has of its
    /// own. Every repository is still named: the backends' constructors name theirs, this one the shared.
    init<Database: SQLDatabase>(
        sql database: Database, outbox: any OutboxRepository, drops: any DropRepository,
        mateRequests: any MateRequestRepository, idempotency: any IdempotencyRepository
    ) {
        self.init(
            users: SQLUserRepository(database: database), devices: SQLDeviceRepository(database: database),
            outbox: outbox, drops: drops, mateRequests: mateRequests, idempotency: idempotency, database: database,
            webhooks: SQLWebhookRepository(database: database), channels: SQLChannelRepository(database: database),
            activityTokens: SQLActivityTokenRepository(database: database))
    }
}
