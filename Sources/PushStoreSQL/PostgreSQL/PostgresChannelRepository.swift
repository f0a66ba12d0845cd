public import APNSCore
import Foundation
import PostgresDriver
public import PushStore

/// `ChannelRepository` on a `PostgresDatabase`: the `channels` table.
public struct PostgresChannelRepository: ChannelRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    private static let select = ChannelRecord.selectSQL

    private static func record(_ row: PostgresRow) -> ChannelRecord {
        ChannelRecord(row: row)
    }

    /// See `ChannelRepository.add`.
    public func add(_ channel: ChannelRecord) async throws {
        try channel.validate()
        try await database.withConnection { db in
            _ = try db.run(
                """
                INSERT INTO channels (id, topic, environment, storage_policy, created_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (id, environment) DO UPDATE SET topic = excluded.topic,
                    storage_policy = excluded.storage_policy, created_at = excluded.created_at
                """,
                [
                    .text(channel.id.rawValue), .text(channel.topic), .text(channel.environment.name),
                    .integer(Int64(channel.storagePolicy.rawValue)), .integer(channel.createdAt.storeMillis),
                ])
        }
    }

    /// See `ChannelRepository.channel(id:environment:)`.
    public func channel(id: APNSChannelID, environment: APNSEnvironment) async throws -> ChannelRecord? {
        try await database.withConnection { db in
            try db.query("\(Self.select) WHERE id = $1 AND environment = $2", [.text(id.rawValue), .text(environment.name)])
                .map(Self.record).first
        }
    }

    /// See `ChannelRepository.channels(topic:environment:)`.
    public func channels(topic: String, environment: APNSEnvironment?) async throws -> [ChannelRecord] {
        try await database.withConnection { db in
            if let environment {
                return try db.query(
                    "\(Self.select) WHERE topic = $1 AND environment = $2 ORDER BY created_at, id",
                    [.text(topic), .text(environment.name)]
                ).map(Self.record)
            }
            return try db.query("\(Self.select) WHERE topic = $1 ORDER BY created_at, id", [.text(topic)]).map(Self.record)
        }
    }

    /// See `ChannelRepository.remove(id:environment:)`.
    public func remove(id: APNSChannelID, environment: APNSEnvironment) async throws -> Bool {
        try await database.withConnection { db in
            try db.run("DELETE FROM channels WHERE id = $1 AND environment = $2", [.text(id.rawValue), .text(environment.name)]) > 0
        }
    }
}
