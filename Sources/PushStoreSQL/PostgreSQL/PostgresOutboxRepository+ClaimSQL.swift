/// The statements of a claim (`PostgresOutboxRepository+Claim`).
extension PostgresOutboxRepository {
    /// The pick of at most $2 due notifications with an outcome row (index `outbox_due`) and due ranges
    /// holding at least $2 notifications if there are (index `outbox_segments_due`) at $1 (now, ms; NULL: the
    /// database's, `PostgresClock`): queued, or in flight under a lease that ended before now.
    /// Returns for each: 1 for a notification (0 for a range), its `seq` or `lo`, `hi`, due time, count, the
    /// range's `done` bits, and 1 when queued (0 when taken over). Ranges are locked only until their
    /// notifications reach $2 (`outbox_claimable_segments`). What the claim does not take stays locked until
    /// it commits.
    static let pickSQL = """
        WITH r AS (
            SELECT seq, due, CASE WHEN state = 'queued' THEN 1 ELSE 0 END AS queued FROM outbox_state
            WHERE due <= \(PostgresClock.millis("$1"))
                AND (state = 'queued' OR (state = 'in_flight' AND lease_until < \(PostgresClock.millis("$1"))))
            ORDER BY due, seq LIMIT $2 FOR UPDATE SKIP LOCKED
        ), g AS (
            SELECT lo, hi, due, remaining, done, CASE WHEN owner IS NULL THEN 1 ELSE 0 END AS queued
            FROM outbox_claimable_segments(\(PostgresClock.millis("$1")), $2)
        )
        SELECT 1, seq, seq, due, 1, NULL::bytea, queued FROM r
        UNION ALL
        SELECT 0, lo, hi, due, remaining, done, queued FROM g
        """

    /// The claim of notifications $3 (`seq`, picked, with $4 their queued flags) at $1 (now, ms; NULL: the
    /// database's): each goes in flight for owner $5 for $6 ms from now, its attempt counted, or expires
    /// (`expiredCondition`, $2 the current epoch second; NULL: the database's). Returns each one's `seq`, its
    /// outcome row's columns (`PostgresOutcomeRow.columns`), then its queued flag.
    ///
    /// A claim writes no indexed column (`PostgresSchema.outboxDue`): `due` stays, so the update is HOT. An
    /// expiring notification leaves the index (`due` NULL): that update is not HOT, and rare.
    static let claimRowsSQL = """
        WITH p AS MATERIALIZED (
            SELECT * FROM unnest($3::bigint[], $4::bigint[]) AS p(seq, queued)
        ), claimed AS (
            UPDATE outbox_state o SET
                state = CASE WHEN \(expiredCondition) THEN 'expired' ELSE 'in_flight' END,
                last_reason = CASE WHEN \(expiredCondition) THEN 'Expired' ELSE o.last_reason END,
                attempts = CASE WHEN \(expiredCondition) THEN o.attempts ELSE o.attempts + 1 END,
                owner = CASE WHEN \(expiredCondition) THEN NULL ELSE $5::text END,
                lease_until = CASE WHEN \(expiredCondition) THEN NULL ELSE \(PostgresClock.millis("$1")) + $6::bigint END,
                due = CASE WHEN \(expiredCondition) THEN NULL ELSE o.due END,
                ended_at = CASE WHEN \(expiredCondition) THEN \(PostgresClock.millis("$1")) ELSE NULL END,
                updated_at = \(PostgresClock.millis("$1"))
            FROM p WHERE o.seq = p.seq
            RETURNING o.*, p.queued
        )
        SELECT s.seq, \(PostgresOutcomeRow.columns), s.queued FROM claimed s
        """

    /// SQL twin of `OutboxItem.isExpired(at:)` over `outbox_state o`, with $2 the current epoch second (NULL:
    /// the database's). Attempts are the count before this claim. A notification expiring at second E is
    /// still sent during second E.
    private static let expiredCondition =
        "((o.expiration > 0 AND o.expiration < \(PostgresClock.seconds("$2"))) OR (o.expiration = 0 AND o.attempts > 0))"

    /// The claim of ranges $3 (`lo`, picked, with $4 their queued flags) at $1: each goes in flight for owner
    /// $5 for $6 ms from now, its attempts counted, one row version per range. Returns each range's `lo`,
    /// `hi`, attempts (`claims`, counting this claim), due time, `done` bits, queued flag, change time (now),
    /// and now in whole epoch seconds ($2; NULL: the database's), which the caller compares the
    /// notifications' expirations with: a notification whose expiration passed (or that has expiration 0
    /// and was attempted before, `claims > 1`) gets its `expired` outcome row (`PostgresOutcomes`).
    static let claimRangesSQL = """
        WITH p AS MATERIALIZED (
            SELECT * FROM unnest($3::bigint[], $4::bigint[]) AS p(lo, queued)
        )
        UPDATE outbox_segments g SET owner = $5, lease_until = \(PostgresClock.millis("$1")) + $6::bigint,
            claims = g.claims + 1, updated_at = \(PostgresClock.millis("$1"))
        FROM p WHERE g.lo = p.lo
        RETURNING g.lo, g.hi, g.claims, g.due, g.done, p.queued, g.updated_at, \(PostgresClock.seconds("$2"))
        """
}
