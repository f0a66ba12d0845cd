import APNSCore
import Foundation
import PushStore

extension ChannelRecord {
    /// `SELECT … FROM channels` in the order `init(row:)` reads.
    static let selectSQL = "SELECT id, topic, environment, storage_policy, created_at FROM channels"

    /// The channel in a row of `selectSQL`.
    init(row: some StoreRow) {
        self.init(
            id: APNSChannelID(rawValue: row.string(at: 0)), topic: row.string(at: 1),
            environment: APNSEnvironment(named: row.string(at: 2)) ?? .production,
            storagePolicy: APNSMessageStoragePolicy(rawValue: Int(row.int64(at: 3))) ?? .noMessageStored,
            createdAt: Date(storeMillis: row.int64(at: 4)))
    }
}
