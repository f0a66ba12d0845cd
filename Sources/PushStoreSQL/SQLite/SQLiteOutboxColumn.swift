/// The columns an outbox row is read from (`OutboxColumn`), over `outbox_items i` joined with
/// `outbox_state s`, in SELECT order.
enum SQLiteOutboxColumn: Int32, OutboxColumn {
    case id, pushID, token, topic, pushType, priority, expiration, collapseID, apnsID, payload, environment
    case state, attempts, nextAttemptAt, lastStatus, lastReason, apnsUniqueID, createdAt, updatedAt
    case channelID

    /// What claims and completions change, and `expiration`, which the claim decides on: the columns of
    /// `outbox_state` (see `SQLiteSchema.outboxStateSplit`).
    static var stateColumns: [Self] {
        [.state, .attempts, .nextAttemptAt, .expiration, .lastStatus, .lastReason, .apnsUniqueID, .updatedAt]
    }

    /// The FROM clause the expressions refer to.
    static let join = "outbox_items i JOIN outbox_state s ON s.seq = i.seq"

    /// `SELECT <every column> FROM <join>`, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM \(join)"
}
