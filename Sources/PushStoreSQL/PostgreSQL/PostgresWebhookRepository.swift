import Foundation
import PostgresDriver
public import PushStore

/// `WebhookRepository` on a `PostgresDatabase` (shared by several instances: claims are leases): the tables `webhook_endpoints` and `webhook_events`. The other
/// PostgreSQL repositories write events through `record(_:_:)` inside their own transactions.
public struct PostgresWebhookRepository: WebhookRepository {
    /// The database holding the tables.
    public let database: PostgresDatabase
    /// The webhooks of `database`.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    typealias EndpointColumn = WebhookEndpointColumn
    typealias EventColumn = WebhookEventColumn

    static func endpoint(_ row: PostgresRow) -> WebhookEndpoint { WebhookEndpoint(row: row) }

    static func delivery(_ row: PostgresRow) -> WebhookDelivery { WebhookDelivery(row: row) }

    /// The subscribers of every event type (one read of the small endpoint table).
    static func subscribers(_ db: PostgresConnection) throws -> WebhookSubscribers {
        WebhookSubscribers(
            try db.query("SELECT id, events FROM webhook_endpoints").map {
                (id: $0.string(at: 0), events: WebhookEndpoint.events(stored: $0.string(at: 1)))
            })
    }

    /// Queues `events` for their subscribers inside the caller's transaction; returns the rows written.
    @discardableResult
    static func record(_ events: [WebhookEvent], subscribers: WebhookSubscribers, _ db: PostgresConnection) throws -> Int {
        var written = 0
        for event in events {
            let endpoints = subscribers.endpoints(for: event.type)
            guard !endpoints.isEmpty else { continue }
            let body = event.stored
            let at = event.occurredAt.storeMillis
            for endpoint in endpoints {
                try db.run(
                    """
                    INSERT INTO webhook_events (event_id, endpoint_id, type, body, state, attempts, next_attempt_at,
                                                created_at, updated_at)
                    VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5, $5)
                    """, [.text(event.id), .text(endpoint), .text(event.type.rawValue), .bytes(body), .integer(at)])
                written += 1
            }
        }
        return written
    }

    /// Queues `events` for their subscribers inside the caller's transaction (reads the subscribers first).
    static func record(_ events: [WebhookEvent], _ db: PostgresConnection) throws {
        let subscribers = try subscribers(db)
        guard !subscribers.isEmpty else { return }
        try record(events, subscribers: subscribers, db)
    }

    /// See `WebhookRepository.record`.
    @discardableResult
    public func record(_ events: [WebhookEvent]) async throws -> Int {
        try await database.transaction { db in try Self.record(events, subscribers: try Self.subscribers(db), db) }
    }

    /// See `WebhookRepository.addEndpoint`.
    public func addEndpoint(_ endpoint: WebhookEndpoint) async throws {
        try endpoint.validate()
        try await database.transaction { db in
            guard try Self.endpoint(id: endpoint.id, db) == nil else { throw PushStoreError.duplicateID(endpoint.id) }
            try Self.upsert(endpoint, db)
        }
    }

    private static func upsert(_ endpoint: WebhookEndpoint, _ db: PostgresConnection) throws {
        try db.run(
            """
            INSERT INTO webhook_endpoints (\(EndpointColumn.selectList)) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (id) DO UPDATE SET url = excluded.url, events = excluded.events, secret = excluded.secret,
                source = excluded.source
            """,
            [
                .text(endpoint.id), .text(endpoint.url), .text(endpoint.storedEvents), .text(endpoint.secret),
                .text(endpoint.source.rawValue), .integer(endpoint.createdAt.storeMillis),
            ])
    }

    private static func endpoint(id: String, _ db: PostgresConnection) throws -> WebhookEndpoint? {
        try db.query("SELECT \(EndpointColumn.selectList) FROM webhook_endpoints WHERE id = $1", [.text(id)]).map(endpoint)
            .first
    }

    /// See `WebhookRepository.endpoints`.
    public func endpoints() async throws -> [WebhookEndpoint] {
        try await database.withConnection { db in
            try db.query("SELECT \(EndpointColumn.selectList) FROM webhook_endpoints ORDER BY created_at, id").map(Self.endpoint)
        }
    }

    /// See `WebhookRepository.endpoint(id:)`.
    public func endpoint(id: String) async throws -> WebhookEndpoint? {
        try await database.withConnection { db in try Self.endpoint(id: id, db) }
    }

    /// See `WebhookRepository.removeEndpoint(id:)`.
    public func removeEndpoint(id: String) async throws -> Bool {
        try await database.transaction { db in try Self.remove(id: id, db) }
    }

    private static func remove(id: String, _ db: PostgresConnection) throws -> Bool {
        guard try db.run("DELETE FROM webhook_endpoints WHERE id = $1", [.text(id)]) > 0 else { return false }
        try db.run("DELETE FROM webhook_events WHERE endpoint_id = $1 AND state IN ('pending', 'in_flight')", [.text(id)])
        return true
    }

    /// See `WebhookRepository.replaceConfigured`.
    public func replaceConfigured(_ endpoints: [WebhookEndpoint]) async throws {
        for endpoint in endpoints { try endpoint.validate() }
        try await database.transaction { db in
            let listed = Set(endpoints.map(\.id))
            let configured = try db.query("SELECT id FROM webhook_endpoints WHERE source = 'config'").map { $0.string(at: 0) }
            for id in configured where !listed.contains(id) { _ = try Self.remove(id: id, db) }
            for endpoint in endpoints { try Self.upsert(endpoint, db) }
        }
    }
}
