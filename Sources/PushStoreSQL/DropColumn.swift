import APNSCore
import Foundation
import PostgresDriver
import PushStore
import SQLiteDriver

/// The columns of `drops`, in SELECT (and INSERT) order.
enum DropColumn: Int32, StoreColumn {
    case id, initiatorID, peerID, state, createdAt, expiresAt, matchedAt, closedAt
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
