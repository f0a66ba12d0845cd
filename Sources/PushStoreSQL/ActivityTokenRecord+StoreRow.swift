import APNSCore
import Foundation
import PushStore

extension ActivityTokenRecord {
    /// `SELECT … FROM activity_tokens` in the order `init(row:)` reads.
    static let selectSQL = """
        SELECT token, topic, user_id, environment, kind, attributes_type, activity_id, registered_at, retired_at
        FROM activity_tokens
        """

    /// The token in a row of `selectSQL`.
    init(row: some StoreRow) {
        self.init(
            token: DeviceToken(storedHex: row.string(at: 0)), topic: row.string(at: 1), userID: row.string(at: 2),
            environment: APNSEnvironment(named: row.string(at: 3)) ?? .production,
            kind: ActivityTokenRecord.kind(
                name: row.string(at: 4), attributesType: row.optionalString(at: 5), activityID: row.optionalString(at: 6)),
            registeredAt: Date(storeMillis: row.int64(at: 7)), retiredAt: row.optionalInt64(at: 8).map(Date.init(storeMillis:)))
    }
}
