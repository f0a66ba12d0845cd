/// The columns an outbox row is read from (`OutboxColumn`), in SELECT order, with its `seq`: what a row
/// sends comes from `outbox_items i`, what changes from its state `s`, which `from` derives from
/// `outbox_state` and the ranges of `outbox_segments` (see `PostgresSchema.outboxSegments`).
enum PostgresOutboxColumn: Int32, OutboxColumn {
    case id, pushID, token, topic, pushType, priority, expiration, collapseID, apnsID, payload, environment
    case state, attempts, nextAttemptAt, lastStatus, lastReason, apnsUniqueID, createdAt, updatedAt, seq
    case channelID

    /// The range `g` starting last at or before `seq` (an SQL expression), for a `LATERAL` join: the live range
    /// covering the row at `seq` when `g.hi >= seq` (ranges never overlap), looked up only while `condition`
    /// holds.
    static func rangeAtOrBefore(_ seq: String, if condition: String = "true") -> String {
        "(SELECT g.* FROM outbox_segments g WHERE \(condition) AND g.lo <= \(seq) ORDER BY g.lo DESC LIMIT 1) g"
    }

    /// `SELECT <every column>`, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM \(from)"

    /// Each row of `outbox_items i` with its state `s`: its state row `r` when it has one, else the live range
    /// `g` covering it (`PostgresSchema.outboxSegments`), found through the range starting last at or before
    /// its `seq`. The view `outbox` reads rows the same way.
    static let from = """
        outbox_items i
        LEFT JOIN outbox_state r ON r.seq = i.seq
        LEFT JOIN LATERAL \(rangeAtOrBefore("i.seq", if: "r.seq IS NULL")) ON g.hi >= i.seq
        CROSS JOIN LATERAL (SELECT
            coalesce(r.state, CASE WHEN g.owner IS NULL THEN 'queued' ELSE 'in_flight' END) AS state,
            coalesce(r.attempts, g.claims) AS attempts, coalesce(r.next_attempt_at, g.due) AS next_attempt_at,
            r.last_status, r.last_reason, r.apns_unique_id, coalesce(r.updated_at, g.updated_at) AS updated_at,
            coalesce(r.owner, g.owner) AS owner, coalesce(r.lease_until, g.lease_until) AS lease_until) s
        """
}
