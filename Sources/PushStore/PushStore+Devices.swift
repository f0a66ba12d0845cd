import Foundation

extension PushStore {
    private static let deviceColumns =
        "token, topic, user_id, environment, registered_at, last_seen, invalidated_at, invalid_reason"

    private static func deviceRow(_ row: SQLiteStatement) -> DeviceRecord {
        DeviceRecord(token: row.string(at: 0), topic: row.string(at: 1), userID: row.string(at: 2),
                     environment: row.string(at: 3), registeredAt: Date(storeMillis: row.int64(at: 4)),
                     lastSeen: Date(storeMillis: row.int64(at: 5)),
                     invalidatedAt: row.optionalInt64(at: 6).map(Date.init(storeMillis:)),
                     invalidReason: row.optionalString(at: 7))
    }

    /// Registers (or re-registers) `token` for `topic`: a re-registration moves the device to `userID`
    /// and `environment`, sets `registeredAt` to `now` and revives an invalidated token.
    public func registerDevice(token: String, topic: String, userID: String, environment: String,
                               now: Date) throws -> DeviceRecord {
        try StoreValidation.token(token)
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment)
        try connection.run("""
            INSERT INTO devices (token, topic, user_id, environment, registered_at, last_seen)
            VALUES (?1, ?2, ?3, ?4, ?5, ?5)
            ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id,
                environment = excluded.environment, registered_at = excluded.registered_at,
                last_seen = excluded.last_seen, invalidated_at = NULL, invalid_reason = NULL
            """, [.text(token), .text(topic), .text(userID), .text(environment), .integer(now.storeMillis)])
        guard let device = try device(token: token, topic: topic) else {
            throw PushStoreError.notFound("device \(token) \(topic)")
        }
        return device
    }

    /// Deletes every registration of `token` (all topics); returns how many rows went.
    public func removeDevice(token: String) throws -> Int {
        try connection.run("DELETE FROM devices WHERE token = ?1", [.text(token)])
    }

    /// The user's devices, oldest registration first; invalidated ones only when asked for.
    public func devices(forUser userID: String, includeInvalidated: Bool = false) throws -> [DeviceRecord] {
        let filter = includeInvalidated ? "" : " AND invalidated_at IS NULL"
        return try connection.query("""
            SELECT \(Self.deviceColumns) FROM devices WHERE user_id = ?1\(filter)
            ORDER BY registered_at, token, topic
            """, [.text(userID)], row: Self.deviceRow)
    }

    /// The registration of `token` for `topic`, active or not.
    public func device(token: String, topic: String) throws -> DeviceRecord? {
        try connection.query("SELECT \(Self.deviceColumns) FROM devices WHERE token = ?1 AND topic = ?2",
                             [.text(token), .text(topic)], row: Self.deviceRow).first
    }

    /// Applies Apple's invalidation rule (`DeviceInvalidationRule`) to an active registration;
    /// returns true if this call invalidated it.
    public func invalidateDevice(token: String, topic: String, reason: String, at timestamp: Date) throws -> Bool {
        try write { db in
            guard let current = try device(token: token, topic: topic), current.isActive,
                  DeviceInvalidationRule.invalidates(reason: reason, timestamp: timestamp,
                                                     registeredAt: current.registeredAt) else { return false }
            try db.run("""
                UPDATE devices SET invalidated_at = ?3, invalid_reason = ?4 WHERE token = ?1 AND topic = ?2
                """, [.text(token), .text(topic), .integer(timestamp.storeMillis), .text(reason)])
            return true
        }
    }
}
