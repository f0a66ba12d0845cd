import Foundation
import PushStore

/// `WebhookRepository` on either SQL database: the tables `webhook_endpoints` and `webhook_events` (on
/// PostgreSQL shared by several instances: claims are leases). The other SQL repositories write events
/// through `record(_:_:)` inside their own transactions.
struct SQLWebhookRepository<Database: SQLDatabase>: WebhookRepository {
    /// The database holding the tables.
    let database: Database

    typealias EndpointColumn = WebhookEndpointColumn
    typealias EventColumn = WebhookEventColumn

    /// Puts rows a crash left in flight back to pending, due at once: for a store used by one process at a
    /// time (SQLite), where the lease deadline in `next_attempt_at` means nothing after a restart.
    static func requeueInFlight(_ db: some SQLSession) throws {
        try db.run("UPDATE webhook_events SET state = 'pending', next_attempt_at = updated_at WHERE state = 'in_flight'", [])
    }

    /// See `WebhookRepository.record`.
    @discardableResult
    func record(_ events: [WebhookEvent]) async throws -> Int {
        try await database.inTransaction { db in try WebhookQueue.record(events, subscribers: try WebhookQueue.subscribers(db), db) }
    }

    /// See `WebhookRepository.addEndpoint`.
    func addEndpoint(_ endpoint: WebhookEndpoint) async throws {
        try endpoint.validate()
        try await database.inTransaction { db in
            guard try Self.endpoint(id: endpoint.id, db) == nil else { throw PushStoreError.duplicateID(endpoint.id) }
            try Self.upsert(endpoint, db)
        }
    }

    private static func upsert(_ endpoint: WebhookEndpoint, _ db: some SQLSession) throws {
        try db.run(
            """
            INSERT INTO webhook_endpoints (\(EndpointColumn.selectList)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (id) DO UPDATE SET url = excluded.url, events = excluded.events, secret = excluded.secret,
                source = excluded.source
            """,
            [
                .text(endpoint.id), .text(endpoint.url), .text(endpoint.storedEvents), .text(endpoint.secret),
                .text(endpoint.source.rawValue), .date(endpoint.createdAt),
            ])
    }

    private static func endpoint(id: String, _ db: some SQLSession) throws -> WebhookEndpoint? {
        try db.row(of: "webhook_endpoints", id: id, columns: EndpointColumn.selectList, WebhookEndpoint.init(row:))
    }

    /// See `WebhookRepository.endpoints`.
    func endpoints() async throws -> [WebhookEndpoint] {
        try await database.query(
            "SELECT \(EndpointColumn.selectList) FROM webhook_endpoints ORDER BY created_at, id", [],
            row: WebhookEndpoint.init(row:))
    }

    /// See `WebhookRepository.endpoint(id:)`.
    func endpoint(id: String) async throws -> WebhookEndpoint? {
        try await database.onConnection { db in try Self.endpoint(id: id, db) }
    }

    /// See `WebhookRepository.removeEndpoint(id:)`.
    func removeEndpoint(id: String) async throws -> Bool {
        try await database.inTransaction { db in try Self.remove(id: id, db) }
    }

    private static func remove(id: String, _ db: some SQLSession) throws -> Bool {
        guard try db.run("DELETE FROM webhook_endpoints WHERE id = ?1", [.text(id)]) > 0 else { return false }
        try db.run("DELETE FROM webhook_events WHERE endpoint_id = ?1 AND state IN ('pending', 'in_flight')", [.text(id)])
        return true
    }

    /// See `WebhookRepository.replaceConfigured`.
    func replaceConfigured(_ endpoints: [WebhookEndpoint]) async throws {
        for endpoint in endpoints { try endpoint.validate() }
        try await database.inTransaction { db in
            let listed = Set(endpoints.map(\.id))
            let configured = try db.query("SELECT id FROM webhook_endpoints WHERE source = 'config'", []) { $0.string(at: 0) }
            for id in configured where !listed.contains(id) { _ = try Self.remove(id: id, db) }
            for endpoint in endpoints { try Self.upsert(endpoint, db) }
        }
    }
}

/// The webhooks of a SQLite database.
typealias SQLiteWebhookRepository = SQLWebhookRepository<SQLiteDatabase>
/// The webhooks of a PostgreSQL database.
typealias PostgresWebhookRepository = SQLWebhookRepository<PostgresDatabase>

/// The webhook queue as the other SQL repositories write it, inside their own transactions, on either
/// database: who subscribes to what, and one `webhook_events` row per subscriber of each event.
enum WebhookQueue {
    /// The endpoints with the event types each subscribes to (stored as `WebhookEndpoint.events(stored:)` reads).
    static let subscribersSQL = "SELECT id, events FROM webhook_endpoints"

    /// The subscribers of every event type (one read of the small endpoint table).
    static func subscribers(_ db: some SQLSession) throws -> WebhookSubscribers {
        WebhookSubscribers(
            try db.query(subscribersSQL, []) {
                (id: $0.string(at: 0), events: WebhookEndpoint.events(stored: $0.string(at: 1)))
            })
    }

    /// Queues `events` for their subscribers inside the caller's transaction; returns the rows written.
    @discardableResult
    static func record(_ events: [WebhookEvent], subscribers: WebhookSubscribers, _ db: some SQLSession) throws -> Int {
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
                    VALUES (?1, ?2, ?3, ?4, 'pending', 0, ?5, ?5, ?5)
                    """, [.text(event.id), .text(endpoint), .text(event.type.rawValue), .bytes(body), .integer(at)])
                written += 1
            }
        }
        return written
    }

    /// Queues `events` for their subscribers inside the caller's transaction (reads the subscribers first).
    static func record(_ events: [WebhookEvent], _ db: some SQLSession) throws {
        let subscribers = try subscribers(db)
        guard !subscribers.isEmpty else { return }
        try record(events, subscribers: subscribers, db)
    }
}
