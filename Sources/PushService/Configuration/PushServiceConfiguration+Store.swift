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

    /// Whether the store is a PostgreSQL database (`postgres://` or `postgresql://` URL).
    public var usesPostgres: Bool {
        let value = resolvedDatabasePath.lowercased()
        return value.hasPrefix("postgres://") || value.hasPrefix("postgresql://")
    }

    /// The store for logs and errors: the SQLite path, or the URL without its password.
    public var databaseDescription: String {
        guard usesPostgres, var parts = URLComponents(string: resolvedDatabasePath) else { return resolvedDatabasePath }
        if parts.password != nil { parts.password = "***" }
        parts.query = nil
        return parts.string ?? "postgres://…"
    }

    /// Opens the store this configuration names and returns its repositories: a PostgreSQL database
    /// (migrated; claims leased under `instanceID`), or the SQLite database at `resolvedDatabasePath`
    /// (migrated, with rows a crash left in flight put back in the queue).
    public func openRepositories() async throws -> PushRepositories {
        if usesPostgres {
            return try await .postgres(
                url: resolvedDatabasePath, poolSize: databasePoolSize, instanceID: instanceID, retryPolicy: retryPolicy,
                lease: outboxLease)
        }
        return try .sqlite(path: resolvedDatabasePath, retryPolicy: retryPolicy)
    }
}
