import PostgresDriver
import PushStore

extension PostgresSchema {
    /// A push stored once (the step after "outbox-items-by-push").
    ///
    /// `outbox_items` held a row per notification, the push's payload, headers and topic repeated in each.
    /// Now `outbox_pushes` holds one row per run of notifications an enqueue stores as one push
    /// (`OutboxPushRun`): the payload, headers and target list once (`targets`, `OutboxTargetList`), its
    /// notifications numbered `lo` … `lo + count - 1` (`seq`, notification k is the run's item k). A
    /// notification's id is found from the id alone: `OutboxPushRun.key(of:)` gives its base and position,
    /// and the push with that `base` whose `first_index` … `first_index + count - 1` holds the position holds
    /// it (`outbox_pushes_by_id`; two pushes never hold one position: an enqueue refuses an id held already).
    ///
    /// Pending notifications stay in `outbox_segments` by the range; a range's `done` (one bit per
    /// notification of `lo` … `hi`, bit k of byte k / 8 from the lowest; NULL: none set) marks those that
    /// left it. A completion sets their bits and counts `remaining` down under the range's row lock. An
    /// outcome row (`outbox_state`, by `seq`) is written only for a notification that is rejected, failed,
    /// expired, queued again for a retry (from then on it is claimed and completed one by one), accepted
    /// after more than one attempt, or accepted with an `apns-unique-id` (APNs sends one in the sandbox
    /// only): an accepted notification of a production push, sent once, costs no row. A notification's state
    /// is its outcome row if it has one; else, while a live range holds it with its bit unset, queued (the
    /// range has no owner) or in flight; else it was accepted at its first attempt, at the push's
    /// `settled_at` (the last time one of its notifications was accepted without an outcome row; with the
    /// outcome rows' `updated_at`, what retention reads).
    ///
    /// The migration makes each `outbox_items` row a push of one; accepted state rows without an
    /// `apns-unique-id` sent once become row-free, and each pending notification without a state row gets
    /// a range of its own (the ranges' due times, claims and leases kept), so rows queued or in flight are
    /// claimed, fenced and renewed as before. The view `outbox` shows every notification as before.
    static let outboxPushes = SchemaMigration(
        name: "outbox-pushes",
        sql: """
            CREATE TABLE outbox_pushes (
                lo          bigint PRIMARY KEY,
                count       integer NOT NULL CHECK (count > 0),
                base        text COLLATE "C" NOT NULL,
                first_index bigint NOT NULL,
                push_id     text COLLATE "C" NOT NULL,
                topic       text NOT NULL,
                push_type   text NOT NULL,
                priority    integer,
                expiration  bigint,
                collapse_id text,
                apns_id     text,
                payload     bytea NOT NULL,
                environment text NOT NULL,
                channels    boolean NOT NULL,
                targets     text NOT NULL,
                due         bigint NOT NULL,
                created_at  bigint NOT NULL,
                settled_at  bigint NOT NULL
            ) WITH (fillfactor = 80);
            CREATE FUNCTION outbox_base(id text) RETURNS text IMMUTABLE LANGUAGE sql AS $body$
                SELECT CASE WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                    THEN left(id, 28) || '00000000' ELSE id END
            $body$;
            CREATE FUNCTION outbox_position(id text) RETURNS bigint IMMUTABLE LANGUAGE sql AS $body$
                SELECT CASE WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                    THEN ('x' || lpad(right(id, 8), 16, '0'))::bit(64)::bigint ELSE 0 END
            $body$;
            CREATE FUNCTION outbox_id(base text, n bigint) RETURNS text IMMUTABLE LANGUAGE sql AS $body$
                SELECT CASE WHEN base ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}0{8}$'
                    THEN left(base, 28) || lpad(to_hex(n), 8, '0') ELSE base END
            $body$;
            CREATE FUNCTION outbox_done(done bytea, size bigint, ns bigint[]) RETURNS bytea
                IMMUTABLE LANGUAGE plpgsql AS $body$
            DECLARE
                bits bytea := coalesce(done, decode(repeat('00', ((size + 7) / 8)::integer), 'hex'));
                k bigint;
            BEGIN
                FOREACH k IN ARRAY ns LOOP
                    bits := set_bit(bits, k::integer, 1);
                END LOOP;
                RETURN bits;
            END
            $body$;
            INSERT INTO outbox_pushes (lo, count, base, first_index, push_id, topic, push_type, priority, expiration,
                    collapse_id, apns_id, payload, environment, channels, targets, due, created_at, settled_at)
                SELECT i.seq, 1, outbox_base(i.id), outbox_position(i.id), i.push_id, i.topic, i.push_type, i.priority,
                    i.expiration, i.collapse_id, CASE WHEN i.apns_id = i.id THEN '' ELSE i.apns_id END, i.payload,
                    i.environment, i.channel_id IS NOT NULL, coalesce(i.channel_id, i.token),
                    coalesce(r.next_attempt_at, g.due, i.created_at), i.created_at, coalesce(r.updated_at, i.created_at)
                FROM outbox_items i
                LEFT JOIN outbox_state r ON r.seq = i.seq
                LEFT JOIN LATERAL (SELECT g.* FROM outbox_segments g WHERE g.lo <= i.seq ORDER BY g.lo DESC LIMIT 1) g
                    ON g.hi >= i.seq;
            CREATE TABLE outbox_segments_before AS SELECT * FROM outbox_segments;
            DELETE FROM outbox_segments;
            ALTER TABLE outbox_segments ADD COLUMN done bytea;
            INSERT INTO outbox_segments (lo, hi, due, claims, remaining, owner, lease_until, updated_at)
                SELECT i.seq, i.seq, g.due, g.claims, 1, g.owner, g.lease_until, g.updated_at
                FROM outbox_segments_before g JOIN outbox_items i ON i.seq BETWEEN g.lo AND g.hi
                WHERE NOT EXISTS (SELECT 1 FROM outbox_state r WHERE r.seq = i.seq);
            DROP TABLE outbox_segments_before;
            DELETE FROM outbox_state WHERE state = 'accepted' AND apns_unique_id IS NULL AND attempts = 1
                AND last_status = 200 AND last_reason IS NULL;
            DROP VIEW outbox;
            DROP TABLE outbox_items;
            DROP INDEX outbox_ended;
            CREATE UNIQUE INDEX outbox_pushes_by_id ON outbox_pushes (base, first_index);
            CREATE INDEX outbox_pushes_by_push ON outbox_pushes (push_id);
            CREATE VIEW outbox AS
                SELECT n.seq, outbox_id(p.base, p.first_index + n.k) AS id, p.push_id,
                    CASE WHEN p.channels THEN '' ELSE n.target END AS token, p.topic, p.push_type, p.priority,
                    p.expiration, p.collapse_id,
                    CASE WHEN p.apns_id = '' THEN outbox_id(p.base, p.first_index + n.k) ELSE p.apns_id END AS apns_id,
                    p.payload, p.environment, s.state, s.attempts, s.next_attempt_at, s.last_status, s.last_reason,
                    s.apns_unique_id, p.created_at, s.updated_at, s.owner, s.lease_until,
                    CASE WHEN p.channels THEN n.target END AS channel_id
                FROM outbox_pushes p
                CROSS JOIN LATERAL (SELECT p.lo + t.k - 1 AS seq, t.k - 1 AS k, t.target
                    FROM unnest(string_to_array(p.targets, ',')) WITH ORDINALITY AS t(target, k)) n
                LEFT JOIN outbox_state r ON r.seq = n.seq
                LEFT JOIN LATERAL (SELECT g.* FROM outbox_segments g WHERE r.seq IS NULL AND g.lo <= n.seq
                    ORDER BY g.lo DESC LIMIT 1) g
                    ON g.hi >= n.seq AND (g.done IS NULL OR get_bit(g.done, (n.seq - g.lo)::integer) = 0)
                CROSS JOIN LATERAL (SELECT
                    CASE WHEN r.seq IS NOT NULL THEN r.state WHEN g.lo IS NULL THEN 'accepted'
                        WHEN g.owner IS NULL THEN 'queued' ELSE 'in_flight' END AS state,
                    CASE WHEN r.seq IS NOT NULL THEN r.attempts WHEN g.lo IS NULL THEN 1 ELSE g.claims END AS attempts,
                    CASE WHEN r.seq IS NOT NULL THEN r.next_attempt_at WHEN g.lo IS NULL THEN p.due ELSE g.due END
                        AS next_attempt_at,
                    CASE WHEN r.seq IS NOT NULL THEN r.last_status WHEN g.lo IS NULL THEN 200 END AS last_status,
                    r.last_reason, r.apns_unique_id,
                    CASE WHEN r.seq IS NOT NULL THEN r.updated_at WHEN g.lo IS NULL THEN p.settled_at ELSE g.updated_at END
                        AS updated_at,
                    coalesce(r.owner, g.owner) AS owner, coalesce(r.lease_until, g.lease_until) AS lease_until) s;
            ANALYZE outbox_pushes;
            ANALYZE outbox_segments;
            ANALYZE outbox_state;
            """)
}
