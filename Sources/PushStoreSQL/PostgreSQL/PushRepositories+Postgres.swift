import PostgresDriver
public import PushStore

extension PushRepositories {
    /// The repositories of one PostgreSQL database, sharing its pool; the outbox retries by `retryPolicy`
    /// and claims with leases of `lease` under the database's `instanceID`.
    public init(database: PostgresDatabase, retryPolicy: OutboxRetryPolicy = .default, lease: Duration = .seconds(60)) {
        self.init(
            sql: database, outbox: PostgresOutboxRepository(database: database, retryPolicy: retryPolicy, lease: lease),
            idempotency: PostgresIdempotencyRepository(database: database))
    }

    /// Connects to the PostgreSQL database at `url` (`postgres://user:password@host:port/database`) with a
    /// pool of `poolSize` connections, migrates it and returns its repositories. Several instances may
    /// share the database; each names itself `instanceID` (unique per process by default) in its claims.
    /// Shared times follow `clock`: the database's own unless a test steps time by hand.
    public static func postgres(
        url: String, poolSize: Int = 4, instanceID: String? = nil, retryPolicy: OutboxRetryPolicy = .default,
        lease: Duration = .seconds(60), clock: PostgresClock = .database,
        callTimeout: Duration? = PostgresDatabase.defaultCallTimeout
    ) async throws -> PushRepositories {
        let database = try await PostgresDatabase.open(
            url: url, poolSize: poolSize, instanceID: instanceID, clock: clock, callTimeout: callTimeout)
        return PushRepositories(database: database, retryPolicy: retryPolicy, lease: lease)
    }
}
