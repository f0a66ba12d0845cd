import PostgresDriver
import PushStore

extension PostgresSchema {
    /// Pending rows kept by the range, not one by one (the step after "outbox-due").
    ///
    /// An enqueue used to write a state row per notification and every claim and completion rewrote it: three
    /// row versions and about seven index entries per notification, which made the outbox on PostgreSQL cost
    /// three times SQLite's. Now a notification has no state row until it has an outcome:
    /// - an enqueue writes its rows to `outbox_items` and one row per run of rows due at the same time to
    ///   `outbox_segments`: the range `lo`…`hi` of their `seq` (one enqueue statement takes one block of
    ///   65,536 numbers from `outbox_batch_seq`, so its rows' `seq` are contiguous), when they are `due`, how
    ///   often the range was claimed (`claims`, the attempts of its rows), its lease (`owner`, `lease_until`)
    ///   and how many of its rows have no state row yet (`remaining`);
    /// - a claim takes whole ranges (splitting the last one at the claim's limit), one row version each;
    /// - a completion writes each row's state row (final, or queued for a retry: from then on the row is
    ///   claimed and completed one by one, as before) and counts the range down; the last one deletes it.
    ///
    /// A row is governed by its state row when it has one, else by the live range covering it: queued while
    /// the range has no owner, in flight under the range's lease when it has. Expired leases, fences and
    /// renewals work on ranges as on rows; the view `outbox` shows every row as before.
    ///
    /// `outbox_claimable_segments(now, wanted)` locks the claimable ranges in claim order, skipping those
    /// another transaction holds, until their rows reach `wanted`: one at a time (a cursor), since locking
    /// every due range would leave the other instances' claims, which step over locked ones, nothing to take
    /// until this one commits, and SQL alone cannot stop a locking scan at a running sum.
    ///
    /// State rows are keyed by `seq` now (a completion reaches them from `outbox_items` by `seq`, which it
    /// reads there anyway): a state row's key entry is a growing 8-byte number instead of a random 36-byte id.
    ///
    /// The view spells out the join the repository then read rows with rather than reading it: a migration's text
    /// stays as it ran, and a later `from` may name columns this step does not have yet.
    static let outboxSegments = SchemaMigration(
        name: "outbox-segments",
        sql: """
            CREATE SEQUENCE outbox_batch_seq AS bigint;
            SELECT setval('outbox_batch_seq', (coalesce((SELECT max(seq) FROM outbox_items), 0) >> 16) + 1, false);
            CREATE TABLE outbox_segments (
                lo          bigint PRIMARY KEY,
                hi          bigint NOT NULL,
                due         bigint NOT NULL,
                claims      integer NOT NULL DEFAULT 0,
                remaining   integer NOT NULL,
                owner       text,
                lease_until bigint,
                updated_at  bigint NOT NULL,
                CHECK (lo <= hi AND remaining > 0 AND remaining <= hi - lo + 1)
            ) WITH (fillfactor = 50);
            CREATE INDEX outbox_segments_due ON outbox_segments (due, lo);
            CREATE INDEX outbox_items_by_seq ON outbox_items (seq);
            ALTER TABLE outbox_state DROP CONSTRAINT outbox_state_pkey, ADD PRIMARY KEY (seq);
            ALTER TABLE outbox_state SET (fillfactor = 90);
            CREATE FUNCTION outbox_claimable_segments(now bigint, wanted bigint)
                RETURNS SETOF outbox_segments LANGUAGE plpgsql AS $body$
            DECLARE
                ranges CURSOR FOR SELECT * FROM outbox_segments
                    WHERE due <= now AND (owner IS NULL OR lease_until < now)
                    ORDER BY due, lo FOR UPDATE SKIP LOCKED;
                segment outbox_segments;
                total bigint := 0;
            BEGIN
                OPEN ranges;
                WHILE total < wanted LOOP
                    FETCH ranges INTO segment;
                    EXIT WHEN NOT FOUND;
                    total := total + segment.remaining;
                    RETURN NEXT segment;
                END LOOP;
                CLOSE ranges;
            END
            $body$;
            CREATE OR REPLACE VIEW outbox AS
                SELECT i.seq, i.id, i.push_id, i.token, i.topic, i.push_type, i.priority, i.expiration, i.collapse_id,
                    i.apns_id, i.payload, i.environment, s.state, s.attempts, s.next_attempt_at, s.last_status,
                    s.last_reason, s.apns_unique_id, i.created_at, s.updated_at, s.owner, s.lease_until, i.channel_id
                FROM outbox_items i
                LEFT JOIN outbox_state r ON r.seq = i.seq
                LEFT JOIN LATERAL (SELECT g.* FROM outbox_segments g WHERE r.seq IS NULL AND g.lo <= i.seq
                    ORDER BY g.lo DESC LIMIT 1) g ON g.hi >= i.seq
                CROSS JOIN LATERAL (SELECT
                    coalesce(r.state, CASE WHEN g.owner IS NULL THEN 'queued' ELSE 'in_flight' END) AS state,
                    coalesce(r.attempts, g.claims) AS attempts, coalesce(r.next_attempt_at, g.due) AS next_attempt_at,
                    r.last_status, r.last_reason, r.apns_unique_id, coalesce(r.updated_at, g.updated_at) AS updated_at,
                    coalesce(r.owner, g.owner) AS owner, coalesce(r.lease_until, g.lease_until) AS lease_until) s;
            """)
}
