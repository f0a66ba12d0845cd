extension SQLiteSchema {
    /// A push stored once (the step after "outbox-in-flight").
    ///
    /// `outbox_items` held one row per notification, payload, headers and token each time, and `outbox_state`
    /// one more, written at enqueue, claim and completion. Now:
    /// - `outbox_pushes` holds one row per run of enqueued items that share everything but their target
    ///   (`OutboxPushRun`): payload, headers and the target list (`targets`, `OutboxTargetList`) once. Its
    ///   notifications are `seq` `lo` … `lo + count - 1`; notification k's id is position `first_index + k` of
    ///   `base` (`OutboxID.position(of:)`; any other id is its own base at 0), found again by
    ///   `outbox_pushes_by_base`. The small columns come first: a row is read up to the column asked for.
    /// - `outbox_ranges` keeps pending notifications by the range `lo` … `hi` of their `seq`: when they are
    ///   `due`, how often the range was claimed (`claims`, their attempts), whether it is in flight, and
    ///   which have left it (`done`, one bit per notification, bit `seq - lo`; NULL: none) with how many are
    ///   left (`remaining`; the range is deleted at 0). A claim takes whole ranges, splitting the last one.
    /// - `outbox_state` keeps an outcome row only for a notification that was rejected, failed, expired or
    ///   queued again for a retry (from then on it is claimed and completed by its row), or that was accepted
    ///   with an `apns-unique-id` (the sandbox's answer). An accepted notification otherwise costs no row: a
    ///   notification with no outcome row and no live range holding it was accepted.
    /// - `outbox_settled` holds, per push, when one of its notifications was last accepted without an outcome
    ///   row (their `updated_at`, and with the outcome rows' the clock retention reads) and the attempts they
    ///   were accepted under: a narrow row of its own, since SQLite rewrites a whole record (payload and
    ///   targets too) on UPDATE.
    ///
    /// Existing rows: each `outbox_items` row becomes a push of one (lo = its seq), its state row kept as its
    /// outcome row, queued and in-flight ones included (claimed one by one, as a retry is); accepted rows
    /// without an `apns_unique_id` lose theirs. The view `outbox` shows one row per notification as before.
    static let outboxPushes = SchemaMigration(
        name: "outbox-pushes",
        sql: """
            DROP VIEW outbox;
            CREATE TABLE outbox_pushes (
                lo              INTEGER PRIMARY KEY,
                count           INTEGER NOT NULL,
                base            TEXT NOT NULL,
                first_index     INTEGER NOT NULL,
                created_at      INTEGER NOT NULL,
                push_id         TEXT NOT NULL,
                topic           TEXT NOT NULL,
                push_type       TEXT NOT NULL,
                priority        INTEGER,
                expiration      INTEGER,
                collapse_id     TEXT,
                apns_id         TEXT,
                environment     TEXT NOT NULL,
                channels        INTEGER NOT NULL,
                payload         BLOB NOT NULL,
                targets         TEXT NOT NULL
            );
            CREATE INDEX outbox_pushes_by_base ON outbox_pushes (base, first_index);
            CREATE INDEX outbox_pushes_by_push ON outbox_pushes (push_id);
            CREATE TABLE outbox_ranges (
                lo              INTEGER PRIMARY KEY,
                hi              INTEGER NOT NULL,
                due             INTEGER NOT NULL,
                claims          INTEGER NOT NULL DEFAULT 0,
                in_flight       INTEGER NOT NULL DEFAULT 0,
                remaining       INTEGER NOT NULL,
                done            BLOB,
                updated_at      INTEGER NOT NULL
            );
            CREATE INDEX outbox_ranges_due ON outbox_ranges (due, lo) WHERE in_flight = 0;
            CREATE TABLE outbox_settled (
                lo              INTEGER PRIMARY KEY,
                settled_at      INTEGER NOT NULL,
                attempts        INTEGER
            );
            INSERT INTO outbox_pushes (lo, count, base, first_index, created_at, push_id, topic, push_type, priority,
                                       expiration, collapse_id, apns_id, environment, channels, payload, targets)
                SELECT i.seq, 1,
                       CASE WHEN i.id GLOB '\(lowercaseUUID)' THEN substr(i.id, 1, 28) || '00000000' ELSE i.id END,
                       CASE WHEN i.id GLOB '\(lowercaseUUID)' THEN \(lowBits("i.id")) ELSE 0 END,
                       i.created_at, i.push_id, i.topic, i.push_type, i.priority, s.expiration, i.collapse_id,
                       CASE WHEN i.apns_id IS NULL THEN NULL WHEN i.apns_id = i.id THEN '' ELSE i.apns_id END,
                       i.environment, i.channel_id IS NOT NULL, i.payload, coalesce(i.channel_id, i.token)
                FROM outbox_items i JOIN outbox_state s ON s.seq = i.seq;
            INSERT INTO outbox_settled (lo, settled_at, attempts)
                SELECT seq, updated_at, attempts FROM outbox_state
                WHERE state IN ('accepted', 'rejected', 'failed', 'expired');
            DELETE FROM outbox_state WHERE state = 'accepted' AND apns_unique_id IS NULL;
            DROP TABLE outbox_items;
            CREATE VIEW outbox AS
                WITH RECURSIVE n(lo, k, count, target, rest) AS (
                    SELECT lo, 0, count, substr(targets, 1, instr(targets || ',', ',') - 1),
                           substr(targets || ',', instr(targets || ',', ',') + 1)
                    FROM outbox_pushes
                    UNION ALL
                    SELECT lo, k + 1, count, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1)
                    FROM n WHERE k + 1 < count
                ), v AS (
                    SELECT n.lo + n.k AS seq, n.k, n.target, p.*,
                           CASE WHEN p.first_index + n.k = 0 THEN p.base
                                ELSE lower(substr(p.base, 1, 28)) || printf('%08x', p.first_index + n.k) END AS id
                    FROM n JOIN outbox_pushes p ON p.lo = n.lo
                ), w AS (
                    SELECT v.*, s.seq AS has_row, s.state AS row_state, s.attempts AS row_attempts,
                           s.next_attempt_at AS row_next_attempt_at, s.last_status AS row_last_status,
                           s.last_reason AS row_last_reason, s.apns_unique_id AS row_apns_unique_id,
                           s.updated_at AS row_updated_at, g.lo AS g_lo, g.due AS g_due, g.claims AS g_claims,
                           g.in_flight AS g_in_flight, g.updated_at AS g_updated_at,
                           g.lo IS NOT NULL AND NOT \(doneBit(range: "g", seq: "v.seq")) AS pending,
                           t.settled_at, t.attempts AS settled_attempts
                    FROM v
                    LEFT JOIN outbox_state s ON s.seq = v.seq
                    LEFT JOIN outbox_ranges g
                        ON g.lo = (SELECT r.lo FROM outbox_ranges r WHERE r.lo <= v.seq ORDER BY r.lo DESC LIMIT 1)
                            AND g.hi >= v.seq AND s.seq IS NULL
                    LEFT JOIN outbox_settled t ON t.lo = v.lo
                )
                SELECT seq, id, push_id, CASE WHEN channels THEN '' ELSE target END AS token, topic, push_type,
                       priority, expiration, collapse_id, CASE WHEN apns_id = '' THEN id ELSE apns_id END AS apns_id,
                       payload, environment,
                       CASE WHEN has_row IS NOT NULL THEN row_state
                            WHEN pending THEN CASE WHEN g_in_flight THEN 'in_flight' ELSE 'queued' END
                            ELSE 'accepted' END AS state,
                       CASE WHEN has_row IS NOT NULL THEN row_attempts WHEN pending THEN g_claims
                            ELSE coalesce(settled_attempts, 1) END AS attempts,
                       CASE WHEN has_row IS NOT NULL THEN row_next_attempt_at WHEN pending THEN g_due
                            ELSE created_at END AS next_attempt_at,
                       CASE WHEN has_row IS NOT NULL THEN row_last_status WHEN pending THEN NULL ELSE 200 END
                           AS last_status,
                       row_last_reason AS last_reason, row_apns_unique_id AS apns_unique_id, created_at,
                       CASE WHEN has_row IS NOT NULL THEN row_updated_at
                            WHEN pending THEN CASE WHEN g_claims = 0 THEN created_at ELSE g_updated_at END
                            ELSE coalesce(settled_at, created_at) END AS updated_at,
                       CASE WHEN channels THEN target END AS channel_id
                FROM w;
            """)

    /// A GLOB pattern matching a UUID in lowercase hex (`OutboxPushRun.key(of:)` reads its position).
    private static let lowercaseUUID = [8, 4, 4, 4, 12].map { String(repeating: "[0-9a-f]", count: $0) }.joined(separator: "-")

    /// The SQL value of the last 32 bits of the lowercase UUID `id` (its last eight hex digits).
    private static func lowBits(_ id: String) -> String {
        (0..<8).map { "((instr('0123456789abcdef', substr(\(id), \(29 + $0), 1)) - 1) << \(28 - 4 * $0))" }
            .joined(separator: " + ")
    }

    /// Whether the `done` bit of `seq` is set in the range `range` (0 or 1, NULL-free).
    private static func doneBit(range: String, seq: String) -> String {
        let offset = "(\(seq) - \(range).lo)"
        let byte = "hex(substr(\(range).done, \(offset) / 8 + 1, 1))"
        let value =
            "((instr('0123456789ABCDEF', substr(\(byte), 1, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(\(byte), 2, 1)) - 1)"
        return "(CASE WHEN coalesce(length(\(range).done), 0) > \(offset) / 8 THEN (\(value) >> (\(offset) % 8)) & 1 ELSE 0 END)"
    }
}
