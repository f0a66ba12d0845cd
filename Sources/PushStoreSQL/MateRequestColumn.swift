import APNSCore
import Foundation
import PostgresDriver
import PushStore
import SQLiteDriver

/// The columns of `mate_requests`, in SELECT (and INSERT) order.
enum MateRequestColumn: Int32, StoreColumn {
    case id, dropID, senderID, recipientID, state, createdAt, answeredAt
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
