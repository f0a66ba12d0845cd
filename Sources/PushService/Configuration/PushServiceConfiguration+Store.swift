import Foundation
public import PushStore
import PushStoreSQL

extension PushServiceConfiguration {
    /// The outbox's retry schedule: `retry_max_attempts`, `retry_base_delay_s`, `retry_max_delay_s`, 20% jitter.
    public var retryPolicy: OutboxRetryPolicy {
        OutboxRetryPolicy(
            maxAttempts: retryMaxAttempts, baseDelay: retryBaseDelay,
            maxDelay: retryMaxDelay, jitter: 0.2)
    }

    /// Whether the store is a PostgreSQL database: a `postgres://` or `postgresql://` URL (one host or several,
    /// `postgresql://a:5432,b:5432/db?target_session_attrs=read-write`) or libpq `key=value` pairs
    /// (`host=a,b port=5432,5432 dbname=db target_session_attrs=read-write`).
    public var usesPostgres: Bool { PostgresDatabase.isConnectionString(resolvedDatabasePath) }

    /// The store for logs and errors: the SQLite path, or the connection string without its password.
    public var databaseDescription: String {
        guard usesPostgres else { return resolvedDatabasePath }
        return PostgresDatabase.redacted(resolvedDatabasePath)
    }

    /// Opens the store this configuration names and returns its repositories: a PostgreSQL database
    /// (migrated; claims leased under `instanceID`), or the SQLite database at `resolvedDatabasePath`
    /// (migrated, with rows a crash left in flight put back in the queue).
    public func openRepositories() async throws -> PushRepositories {
        if usesPostgres {
            return try await .postgres(
                url: resolvedDatabasePath, poolSize: databasePoolSize, instanceID: instanceID, retryPolicy: retryPolicy,
                lease: outboxLease, callTimeout: databaseCallTimeout)
        }
        return try .sqlite(path: resolvedDatabasePath, retryPolicy: retryPolicy)
    }
}
