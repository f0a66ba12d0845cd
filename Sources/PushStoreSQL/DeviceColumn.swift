import APNSCore
import Foundation
import PostgresDriver
import PushStore
import SQLiteDriver

/// The columns of `devices`, in SELECT order.
enum DeviceColumn: Int32, StoreColumn {
    case token, topic, userID, environment, registeredAt, lastSeen, invalidatedAt, invalidReason
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
