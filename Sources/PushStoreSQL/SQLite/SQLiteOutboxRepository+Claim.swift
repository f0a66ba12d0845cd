public import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// See `OutboxRepository.claim`: up to `limit` queued rows due at `now` (earliest due first) go in
    /// flight, counting the attempt; rows whose expiration has passed become `expired` instead, all in one
    /// transaction.
    public func claim(limit: Int, now: Date) async throws -> OutboxClaim {
        guard limit > 0 else { return OutboxClaim() }
        return try await database.write { db in
            let claim = try Self.claim(limit: limit, now: now, db)
            try Self.reportEnded(claim.expired.map { ($0, nil) }, now: now, db)
            return claim
        }
    }

    private static func claim(limit: Int, now: Date, _ db: SQLiteConnection) throws -> OutboxClaim {
        let millis = now.storeMillis
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let updatedAt = Date(storeMillis: millis)
        // Per page: read the due window in claim order (with the expiry verdict), then move the same
        // window on with one UPDATE of the narrow state rows. The window is every queued row up to
        // the last one read, in (next_attempt_at, seq) order; nothing else writes inside this
        // transaction, so the UPDATE finds exactly the rows the SELECT returned.
        let due = try db.statement(claimSelectSQL)
        let take = try db.statement(claimUpdateSQL)
        var claimed: [OutboxItem] = []
        claimed.reserveCapacity(min(limit, 4_096))
        var expired: [String] = []
        while claimed.count < limit {
            let page = limit - claimed.count
            var rows = 0
            var last: (nextAttempt: Int64, seq: Int64) = (0, 0)
            do {
                defer { due.reset() }
                try due.bind(millis, at: 1)
                try due.bind(seconds, at: 2)
                try due.bind(Int64(page), at: 3)
                while try due.step() {
                    rows += 1
                    last = (due.int64(SQLiteOutboxColumn.nextAttemptAt), due.int64(at: ClaimColumn.seq))
                    if due.int64(at: ClaimColumn.expired) != 0 {  // expired: not handed out, but reported
                        expired.append(due.string(SQLiteOutboxColumn.id))
                        continue
                    }
                    var item = SQLiteOutboxColumn.item(due, previous: claimed.last)
                    item.state = .inFlight
                    item.attempts += 1
                    item.updatedAt = updatedAt
                    claimed.append(consume item)
                }
            }
            guard rows > 0 else { break }
            do {
                defer { take.reset() }
                try take.bind(millis, at: 1)
                try take.bind(seconds, at: 2)
                try take.bind(last.nextAttempt, at: 3)
                try take.bind(last.seq, at: 4)
                while try take.step() {}
            }
            if rows < page { break }
        }
        return OutboxClaim(items: claimed, expired: expired)
    }

    /// Where the claim query's two extra expressions sit, after the item's columns.
    private enum ClaimColumn {
        /// 1 when the row has expired (`expiredCondition`), else 0.
        static let expired = SQLiteOutboxColumn.end
        /// The row's `seq`.
        static let seq = SQLiteOutboxColumn.end + 1
    }

    /// The due window (?1 now in ms, ?3 rows), earliest first: each row's columns, then its expiry
    /// verdict and `seq` (`ClaimColumn`).
    private static let claimSelectSQL = """
        SELECT \(SQLiteOutboxColumn.selectList), \(expiredCondition), s.seq
        FROM outbox_state s JOIN outbox_items i ON i.seq = s.seq
        WHERE s.state = 'queued' AND s.next_attempt_at <= ?1
        ORDER BY s.next_attempt_at, s.seq LIMIT ?3
        """

    /// The same window, up to its last row (?3 next_attempt_at, ?4 seq), made in flight (attempt counted)
    /// or, if expired (OutboxItem.isExpired), expired. A range, not `seq IN (SELECT … LIMIT)`, so SQLite
    /// builds no temporary table of the window. OR ROLLBACK: see `insertSQL`.
    private static let claimUpdateSQL = """
        UPDATE OR ROLLBACK outbox_state AS s SET
            state = CASE WHEN \(expiredCondition) THEN 'expired' ELSE 'in_flight' END,
            last_reason = CASE WHEN \(expiredCondition) THEN 'Expired' ELSE last_reason END,
            attempts = CASE WHEN \(expiredCondition) THEN attempts ELSE attempts + 1 END,
            updated_at = ?1
        WHERE state = 'queued' AND next_attempt_at <= ?3 AND (next_attempt_at < ?3 OR seq <= ?4)
        """

    /// SQL twin of `OutboxItem.isExpired(at:)` over `outbox_state s`, with ?2 the current epoch second.
    /// Attempts are the count before this claim. A row expiring at second E is still sent during second E
    /// (E < now is false).
    private static let expiredCondition =
        "((s.expiration > 0 AND s.expiration < ?2) OR (s.expiration = 0 AND s.attempts > 0))"
}
