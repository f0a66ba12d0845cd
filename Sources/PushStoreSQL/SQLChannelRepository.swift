import APNSCore
import Foundation
import PushStore

/// `ChannelRepository` on either SQL database: the `channels` table.
struct SQLChannelRepository<Database: SQLDatabase>: ChannelRepository {
    /// The database holding the table.
    let database: Database

    /// See `ChannelRepository.add`.
    func add(_ channel: ChannelRecord) async throws {
        try channel.validate()
        try await database.run(
            """
            INSERT INTO channels (id, topic, environment, storage_policy, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (id, environment) DO UPDATE SET topic = excluded.topic,
                storage_policy = excluded.storage_policy, created_at = excluded.created_at
            """,
            [
                .text(channel.id.rawValue), .text(channel.topic), .text(channel.environment.name),
                .integer(channel.storagePolicy.rawValue), .date(channel.createdAt),
            ])
    }

    /// See `ChannelRepository.channel(id:environment:)`.
    func channel(id: APNSChannelID, environment: APNSEnvironment) async throws -> ChannelRecord? {
        try await database.onConnection { db in
            try db.query(
                "\(ChannelRecord.selectSQL) WHERE id = ?1 AND environment = ?2", [.text(id.rawValue), .text(environment.name)],
                row: ChannelRecord.init(row:)
            ).first
        }
    }

    /// See `ChannelRepository.channels(topic:environment:)`.
    func channels(topic: String, environment: APNSEnvironment?) async throws -> [ChannelRecord] {
        try await database.onConnection { db in
            if let environment {
                return try db.query(
                    "\(ChannelRecord.selectSQL) WHERE topic = ?1 AND environment = ?2 ORDER BY created_at, id",
                    [.text(topic), .text(environment.name)], row: ChannelRecord.init(row:))
            }
            return try db.query(
                "\(ChannelRecord.selectSQL) WHERE topic = ?1 ORDER BY created_at, id", [.text(topic)], row: ChannelRecord.init(row:))
        }
    }

    /// See `ChannelRepository.remove(id:environment:)`.
    func remove(id: APNSChannelID, environment: APNSEnvironment) async throws -> Bool {
        try await database.run(
            "DELETE FROM channels WHERE id = ?1 AND environment = ?2", [.text(id.rawValue), .text(environment.name)]) > 0
    }
}

/// The channels of a SQLite database.
typealias SQLiteChannelRepository = SQLChannelRepository<SQLiteDatabase>
/// The channels of a PostgreSQL database.
typealias PostgresChannelRepository = SQLChannelRepository<PostgresDatabase>
