public import PushStore
import SQLiteDriver

extension PushRepositories {
    /// The repositories of one SQLite database, sharing its connection; the outbox retries by `retryPolicy`.
    public init(database: SQLiteDatabase, retryPolicy: OutboxRetryPolicy = .default) {
        self.init(
            sql: database, outbox: SQLiteOutboxRepository(database: database, retryPolicy: retryPolicy),
            idempotency: SQLiteIdempotencyRepository(database: database))
    }

    /// Opens (creating and migrating if needed) the SQLite database at `path` and returns its repositories;
    /// outbox rows a crash left in flight go back in the queue (`database.recoveredAtOpen` says how many).
    public static func sqlite(path: String, retryPolicy: OutboxRetryPolicy = .default) throws -> PushRepositories {
        PushRepositories(database: try SQLiteDatabase(path: path), retryPolicy: retryPolicy)
    }
}
