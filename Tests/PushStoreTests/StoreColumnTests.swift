import SQLiteDriver
import Testing

@testable import PushStoreSQL

/// A column enum's cases name its table's columns: in snake_case unless the enum says otherwise
/// (`StoreColumn.expression`).
@Suite("Store column names")
struct StoreColumnTests {
    @Test func snakeCaseOfCaseNames() {
        #expect(DropColumn.snakeCase("id") == "id")
        #expect(DropColumn.snakeCase("initiatorID") == "initiator_id")
        #expect(DropColumn.snakeCase("nextAttemptAt") == "next_attempt_at")
        #expect(DropColumn.snakeCase("apnsUniqueID") == "apns_unique_id")
        #expect(DropColumn.snakeCase("sha256Sum") == "sha256_sum")
    }

    @Test func selectListsNameTheTablesColumns() {
        #expect(DropColumn.selectList == "id, initiator_id, peer_id, state, created_at, expires_at, matched_at, closed_at")
        #expect(MateRequestColumn.selectList == "id, drop_id, sender_id, recipient_id, state, created_at, answered_at")
        #expect(WebhookEndpointColumn.selectList == "id, url, events, secret, source, created_at")
        #expect(
            WebhookEventColumn.selectList
                == "event_id, endpoint_id, type, body, state, attempts, next_attempt_at, last_status, last_error, created_at, updated_at")
        #expect(
            DeviceColumn.selectList
                == "token, topic, user_id, environment, registered_at, last_seen, invalidated_at, invalid_reason")
        #expect(SQLUserRepository<SQLiteDatabase>.Column.selectList == "id, card, created_at, updated_at")
    }

    @Test("every list selects from its table in the migrated schema")
    func listsPrepareAgainstTheSchema() throws {
        let database = try SQLiteConnection(path: ":memory:")
        try database.migrate(SQLiteSchema.migrations.map(\.step))
        for (table, list) in [
            ("drops", DropColumn.selectList), ("mate_requests", MateRequestColumn.selectList),
            ("webhook_endpoints", WebhookEndpointColumn.selectList), ("webhook_events", WebhookEventColumn.selectList),
            ("devices", DeviceColumn.selectList), ("users", SQLUserRepository<SQLiteDatabase>.Column.selectList),
        ] {
            #expect(throws: Never.self, "\(table)") { _ = try database.statement("SELECT \(list) FROM \(table)") }
        }
    }
}
