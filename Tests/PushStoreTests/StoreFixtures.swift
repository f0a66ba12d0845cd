import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Which twin a shared test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, memory, postgres
    var testDescription: String { rawValue }
}

/// One set of repositories of one kind; `store` is the database for the SQLite kind, `postgres` the one for
/// the PostgreSQL kind (a fresh database of the test process's throwaway cluster).
struct Repositories {
    var users: any UserRepository
    var devices: any DeviceRepository
    var outbox: any OutboxRepository
    var drops: any DropRepository
    var mates: any MateRequestRepository
    var idempotency: any IdempotencyRepository
    var store: SQLiteDatabase?
    var postgres: PostgresDatabase? = nil
    var webhooks: (any WebhookRepository)? = nil
    var channels: any ChannelRepository = InMemoryChannelRepository()
    var activityTokens: any ActivityTokenRepository = InMemoryActivityTokenRepository()
}

extension Repositories {
    init(_ set: PushRepositories, store: SQLiteDatabase?, postgres: PostgresDatabase? = nil) {
        self.init(
            users: set.users, devices: set.devices, outbox: set.outbox, drops: set.drops,
            mates: set.mateRequests, idempotency: set.idempotency, store: store, postgres: postgres, webhooks: set.webhooks,
            channels: set.channels, activityTokens: set.activityTokens)
    }

    /// Rows in `table` of the backing database (nil for the in-memory kind).
    func rowCount(_ table: String) async throws -> Int? {
        if let store { return try await store.rowCount(table) }
        if let postgres { return try await postgres.rowCount(table) }
        return nil
    }
}

extension StoreKind {
    func make(retryPolicy: OutboxRetryPolicy = .default) async throws -> Repositories {
        switch self {
        case .sqlite:
            let store = try SQLiteDatabase(path: ":memory:")
            return Repositories(PushRepositories(database: store, retryPolicy: retryPolicy), store: store)
        case .memory:
            return Repositories(.inMemory(retryPolicy: retryPolicy), store: nil)
        case .postgres:
            let url = try await PostgresTestCluster.shared().createDatabase()
            let database = try await PostgresDatabase.open(url: url, poolSize: 2, clock: .caller)
            return Repositories(PushRepositories(database: database, retryPolicy: retryPolicy), store: nil, postgres: database)
        }
    }
}

/// A fixed instant all tests count from.
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

/// `t0` plus `seconds`.
func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

/// A valid, distinct 64-character lowercase hex token.
func token(_ n: Int) -> DeviceToken { DeviceToken(stringLiteral: String(repeating: "0", count: 48) + String(format: "%016x", n)) }

let topic = "com.example.sniffmeet"

func card(_ name: String = "Ana") -> ProfileCard {
    ProfileCard(
        name: name, dogName: "Rex", breed: "Beagle", age: 3, bio: "Loves the park",
        imageURL: "https://example.com/rex.jpg")
}

func outboxItem(
    _ id: String, push: String = "push-1", token n: Int = 1, expiration: Int? = nil,
    now: Date = t0
) -> OutboxItem {
    OutboxItem(
        id: id, pushID: push, token: token(n), topic: topic, pushType: "alert",
        payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), environment: "development",
        priority: 10, expiration: expiration.map { .at(epochSeconds: Int64($0)) } ?? .none, collapseID: nil, apnsID: nil,
        now: now)
}

/// The outcome `result` of row `id`, sent under the claim that made its attempt count `attempt`.
func done(_ id: String, _ result: APNSDeliveryResult, attempt: Int = 1) -> OutboxCompletion {
    OutboxCompletion(id: id, attempt: attempt, result: result)
}

extension APNSDeliveryResult {
    /// An acceptance with a fixed apns-id and `apnsUniqueID` (development only).
    static func accepted(apnsUniqueID: String?) -> APNSDeliveryResult {
        .accepted(apnsID: "0a1b2c3d-0000-4000-8000-0000000000ff", uniqueID: apnsUniqueID)
    }

    /// A final rejection by status and reason name.
    static func rejected(status: Int, reason: String) -> APNSDeliveryResult {
        .rejected(APNSRejection(status: status, reason: APNSRejectionReason(rawValue: reason)))
    }

    /// A retry: APNs' retryable rejection when a status is given, otherwise a transport failure.
    static func retry(status: Int?, reason: String) -> APNSDeliveryResult {
        guard let status else { return .failed(APNSTransportError(.outcomeUnknown, reason)) }
        return .rejected(APNSRejection(status: status, reason: APNSRejectionReason(rawValue: reason)))
    }
}

/// An outbox row as SQLite schema versions before "outbox-pushes" kept it (`outbox_items` and `outbox_state`),
/// for migration tests.
struct LegacyOutboxRow {
    var seq: Int64
    var id: String
    var push = "push-1"
    var token: Int
    var channel: String? = nil
    var state: String
    var attempts: Int
    var expiration: Int? = nil
    var apnsID: String? = nil
    var lastStatus: Int? = nil
    var lastReason: String? = nil
    var apnsUniqueID: String? = nil
    var createdAt: Date
    var updatedAt: Date? = nil
    var nextAttemptAt: Date? = nil

    func insert(_ db: SQLiteConnection) throws {
        try db.run(
            """
            INSERT INTO outbox_items (seq, id, push_id, token, topic, push_type, priority, collapse_id, apns_id, payload,
                environment, created_at, channel_id)
            VALUES (?1, ?2, ?3, ?4, ?5, 'alert', 10, NULL, ?6, ?7, 'development', ?8, ?9)
            """,
            [
                .integer(seq), .text(id), .text(push), .text(channel == nil ? PushStoreTests.token(token).hex : ""),
                .text(topic), apnsID.map { .text($0) } ?? .null, .blob(Array(#"{"aps":{"alert":"hi"}}"#.utf8)),
                .integer(createdAt.storeMillis), channel.map { .text($0) } ?? .null,
            ])
        try db.run(
            """
            INSERT INTO outbox_state (seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
                apns_unique_id, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """,
            [
                .integer(seq), .text(state), .integer(Int64(attempts)), .integer((nextAttemptAt ?? createdAt).storeMillis),
                expiration.map { .integer(Int64($0)) } ?? .null, lastStatus.map { .integer(Int64($0)) } ?? .null,
                lastReason.map { .text($0) } ?? .null, apnsUniqueID.map { .text($0) } ?? .null,
                .integer((updatedAt ?? createdAt).storeMillis),
            ])
    }
}
