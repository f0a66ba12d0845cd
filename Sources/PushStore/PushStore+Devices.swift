import APNSCore
import Foundation

extension PushStore {
    private static let deviceColumns =
        "token, topic, user_id, environment, registered_at, last_seen, invalidated_at, invalid_reason"

    private static func deviceRow(_ row: SQLiteStatement) -> DeviceRecord {
        // Every column was checked on the way in, so the typed values come back as stored.
        DeviceRecord(token: DeviceToken(storedHex: row.string(at: 0)), topic: row.string(at: 1), userID: row.string(at: 2),
                     environment: APNSEnvironment(named: row.string(at: 3)) ?? .production,
                     registeredAt: Date(storeMillis: row.int64(at: 4)),
                     lastSeen: Date(storeMillis: row.int64(at: 5)),
                     invalidatedAt: row.optionalInt64(at: 6).map(Date.init(storeMillis:)),
                     invalidReason: row.optionalString(at: 7).map(APNSRejectionReason.init(rawValue:)))
    }

    /// Registers (or re-registers) `token` for `topic`: a re-registration moves the device to `userID`
    /// and `environment`, sets `registeredAt` to `now` and revives an invalidated token.
    public func registerDevice(token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
                               now: Date) throws -> DeviceRecord {
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment.name)
        try connection.run("""
            INSERT INTO devices (token, topic, user_id, environment, registered_at, last_seen)
            VALUES (?1, ?2, ?3, ?4, ?5, ?5)
            ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id,
                environment = excluded.environment, registered_at = excluded.registered_at,
                last_seen = excluded.last_seen, invalidated_at = NULL, invalid_reason = NULL
            """, [.text(token.hex), .text(topic), .text(userID), .text(environment.name), .integer(now.storeMillis)])
        guard let device = try device(token: token, topic: topic) else {
            throw PushStoreError.notFound("device \(token) \(topic)")
        }
        return device
    }

    /// Deletes every registration of `token` (all topics); returns how many rows went.
    public func removeDevice(token: DeviceToken) throws -> Int {
        try connection.run("DELETE FROM devices WHERE token = ?1", [.text(token.hex)])
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
    public func device(token: DeviceToken, topic: String) throws -> DeviceRecord? {
        try connection.query("SELECT \(Self.deviceColumns) FROM devices WHERE token = ?1 AND topic = ?2",
                             [.text(token.hex), .text(topic)], row: Self.deviceRow).first
    }

    /// The registrations of `tokens` for `topic`, read in statements of up to 500 tokens each (one actor
    /// turn for the whole list); tokens without a registration are absent.
    public func devices(tokens: [DeviceToken], topic: String) throws -> [DeviceToken: DeviceRecord] {
        var found: [DeviceToken: DeviceRecord] = [:]
        var start = tokens.startIndex
        while start < tokens.endIndex {
            let chunk = tokens[start..<min(start + 500, tokens.endIndex)]
            let placeholders = (0..<chunk.count).map { "?\($0 + 2)" }.joined(separator: ", ")
            let rows = try connection.query(
                "SELECT \(Self.deviceColumns) FROM devices WHERE topic = ?1 AND token IN (\(placeholders))",
                [.text(topic)] + chunk.map { .text($0.hex) }, row: Self.deviceRow)
            for device in rows { found[device.token] = device }
            start = chunk.endIndex
        }
        return found
    }

    /// Applies Apple's invalidation rule (`DeviceInvalidationRule`) to an active registration;
    /// returns true if this call invalidated it.
    public func invalidateDevice(token: DeviceToken, topic: String, reason: APNSRejectionReason,
                                 at timestamp: Date) throws -> Bool {
        try write { db in
            guard let current = try device(token: token, topic: topic), current.isActive,
                  DeviceInvalidationRule.invalidates(reason: reason, timestamp: timestamp,
                                                     registeredAt: current.registeredAt) else { return false }
            try db.run("""
                UPDATE devices SET invalidated_at = ?3, invalid_reason = ?4 WHERE token = ?1 AND topic = ?2
                """, [.text(token.hex), .text(topic), .integer(timestamp.storeMillis), .text(reason.rawValue)])
            return true
        }
    }
}
