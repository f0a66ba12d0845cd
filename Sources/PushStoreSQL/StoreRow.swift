import APNSCore
import Foundation
import PostgresDriver
import PushStore
import SQLiteDriver

/// One result row of either SQL backend, read by column offset: what the shared column lists and record
/// mappings below need, so each table's columns and row-to-record rule exist once for both backends.
protocol StoreRow {
    func int64(at column: Int32) -> Int64
    func optionalInt64(at column: Int32) -> Int64?
    func string(at column: Int32) -> String
    func optionalString(at column: Int32) -> String?
    func bytes(at column: Int32) -> [UInt8]
}

extension SQLiteStatement: StoreRow {
    func bytes(at column: Int32) -> [UInt8] { blob(at: column) }
}
extension PostgresRow: StoreRow {}

extension StoreRow {
    func int64(_ column: some StoreColumn) -> Int64 { int64(at: column.rawValue) }
    func optionalInt64(_ column: some StoreColumn) -> Int64? { optionalInt64(at: column.rawValue) }
    func int(_ column: some StoreColumn) -> Int { Int(int64(at: column.rawValue)) }
    func optionalInt(_ column: some StoreColumn) -> Int? { optionalInt64(at: column.rawValue).map(Int.init) }
    func string(_ column: some StoreColumn) -> String { string(at: column.rawValue) }
    func optionalString(_ column: some StoreColumn) -> String? { optionalString(at: column.rawValue) }
    func bytes(_ column: some StoreColumn) -> [UInt8] { bytes(at: column.rawValue) }
    /// The time stored in `column` (milliseconds since 1970).
    func date(_ column: some StoreColumn) -> Date { Date(storeMillis: int64(at: column.rawValue)) }
    /// The time stored in `column`, or nil for NULL.
    func optionalDate(_ column: some StoreColumn) -> Date? {
        optionalInt64(at: column.rawValue).map(Date.init(storeMillis:))
    }
}

/// The columns of `devices`, in SELECT order.
enum DeviceColumn: Int32, StoreColumn {
    case token, topic, userID, environment, registeredAt, lastSeen, invalidatedAt, invalidReason

    var expression: String {
        switch self {
        case .token: "token"
        case .topic: "topic"
        case .userID: "user_id"
        case .environment: "environment"
        case .registeredAt: "registered_at"
        case .lastSeen: "last_seen"
        case .invalidatedAt: "invalidated_at"
        case .invalidReason: "invalid_reason"
        }
    }
}

extension DeviceRecord {
    /// The device in a row selecting `DeviceColumn.selectList`. Every column was checked on the way in, so
    /// the typed values come back as stored.
    init(row: some StoreRow) {
        self.init(
            token: DeviceToken(storedHex: row.string(DeviceColumn.token)), topic: row.string(DeviceColumn.topic),
            userID: row.string(DeviceColumn.userID),
            environment: APNSEnvironment(named: row.string(DeviceColumn.environment)) ?? .production,
            registeredAt: row.date(DeviceColumn.registeredAt), lastSeen: row.date(DeviceColumn.lastSeen),
            invalidatedAt: row.optionalDate(DeviceColumn.invalidatedAt),
            invalidReason: row.optionalString(DeviceColumn.invalidReason).map(APNSRejectionReason.init(rawValue:)))
    }
}

/// The columns of `drops`, in SELECT (and INSERT) order.
enum DropColumn: Int32, StoreColumn {
    case id, initiatorID, peerID, state, createdAt, expiresAt, matchedAt, closedAt

    var expression: String {
        switch self {
        case .id: "id"
        case .initiatorID: "initiator_id"
        case .peerID: "peer_id"
        case .state: "state"
        case .createdAt: "created_at"
        case .expiresAt: "expires_at"
        case .matchedAt: "matched_at"
        case .closedAt: "closed_at"
        }
    }
}

extension DropRecord {
    /// The drop in a row selecting `DropColumn.selectList`.
    init(row: some StoreRow) {
        self.init(
            id: row.string(DropColumn.id), initiatorID: row.string(DropColumn.initiatorID),
            peerID: row.string(DropColumn.peerID), state: DropState(rawValue: row.string(DropColumn.state)) ?? .expired,
            createdAt: row.date(DropColumn.createdAt), expiresAt: row.date(DropColumn.expiresAt),
            matchedAt: row.optionalDate(DropColumn.matchedAt), closedAt: row.optionalDate(DropColumn.closedAt))
    }
}

/// The columns of `mate_requests`, in SELECT (and INSERT) order.
enum MateRequestColumn: Int32, StoreColumn {
    case id, dropID, senderID, recipientID, state, createdAt, answeredAt

    var expression: String {
        switch self {
        case .id: "id"
        case .dropID: "drop_id"
        case .senderID: "sender_id"
        case .recipientID: "recipient_id"
        case .state: "state"
        case .createdAt: "created_at"
        case .answeredAt: "answered_at"
        }
    }
}

extension MateRequestRecord {
    /// The request in a row selecting `MateRequestColumn.selectList`.
    init(row: some StoreRow) {
        self.init(
            id: row.string(MateRequestColumn.id), dropID: row.string(MateRequestColumn.dropID),
            senderID: row.string(MateRequestColumn.senderID), recipientID: row.string(MateRequestColumn.recipientID),
            state: MateRequestState(rawValue: row.string(MateRequestColumn.state)) ?? .declined,
            createdAt: row.date(MateRequestColumn.createdAt), answeredAt: row.optionalDate(MateRequestColumn.answeredAt))
    }
}
