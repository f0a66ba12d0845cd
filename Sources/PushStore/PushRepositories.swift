/// One set of repositories over one backing store: what the match service and the outbox need, whichever
/// store holds the data. Tests and benchmarks that must run on every store kind build one per kind.
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

    /// The repositories of `store` (SQLite).
    public init(store: PushStore) {
        users = SQLiteUserRepository(store: store)
        devices = SQLiteDeviceRepository(store: store)
        outbox = SQLiteOutboxRepository(store: store)
        drops = SQLiteDropRepository(store: store)
        mateRequests = SQLiteMateRequestRepository(store: store)
    }

    /// Fresh in-memory repositories (the twins of the SQLite ones, same rules).
    public static func inMemory(retryPolicy: OutboxRetryPolicy = .default) -> PushRepositories {
        let drops = InMemoryDropRepository()
        return PushRepositories(users: InMemoryUserRepository(), devices: InMemoryDeviceRepository(),
                                outbox: InMemoryOutboxRepository(retryPolicy: retryPolicy), drops: drops,
                                mateRequests: InMemoryMateRequestRepository(drops: drops))
    }

    private init(users: any UserRepository, devices: any DeviceRepository, outbox: any OutboxRepository,
                 drops: any DropRepository, mateRequests: any MateRequestRepository) {
        self.users = users
        self.devices = devices
        self.outbox = outbox
        self.drops = drops
        self.mateRequests = mateRequests
    }
}
