/// One set of repositories over one backing store: what the service, the match service and the outbox
/// worker need, whichever store holds the data. Build one per store with `sqlite(path:retryPolicy:)`,
/// `init(database:retryPolicy:)` or `inMemory(retryPolicy:)`; a new backend adds one such constructor.
public struct PushRepositories: Sendable {
    /// Users and their profile cards.
    public var users: any UserRepository
    /// Device tokens.
    public var devices: any DeviceRepository
    /// The durable outbox.
    public var outbox: any OutboxRepository
    /// Profile drops.
    public var drops: any DropRepository
    /// Mate requests.
    public var mateRequests: any MateRequestRepository
    /// `Idempotency-Key` records.
    public var idempotency: any IdempotencyRepository
    /// The database as a whole (health, recovery at open).
    public var database: any PushDatabase
    /// Webhook endpoints and their event queue.
    public var webhooks: any WebhookRepository
    /// Broadcast channels per app topic and environment.
    public var channels: any ChannelRepository
    /// ActivityKit push tokens (push-to-start and Live Activity update tokens).
    public var activityTokens: any ActivityTokenRepository

    /// A set from its parts (a backend's constructor calls this). Every repository is named: there are no
    /// defaults, so a backend that forgets one does not build instead of losing that data to memory.
    public init(
        users: any UserRepository, devices: any DeviceRepository, outbox: any OutboxRepository,
        drops: any DropRepository, mateRequests: any MateRequestRepository,
        idempotency: any IdempotencyRepository, database: any PushDatabase, webhooks: any WebhookRepository,
        channels: any ChannelRepository, activityTokens: any ActivityTokenRepository
    ) {
        self.users = users
        self.devices = devices
        self.outbox = outbox
        self.drops = drops
        self.mateRequests = mateRequests
        self.idempotency = idempotency
        self.database = database
        self.webhooks = webhooks
        self.channels = channels
        self.activityTokens = activityTokens
    }
}
