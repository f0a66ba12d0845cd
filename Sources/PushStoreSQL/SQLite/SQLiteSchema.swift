import PushStore
import SQLiteDriver

/// The SQLite schema as an ordered list of migrations. Append new steps; never change what a shipped one
/// does (a database records only how many steps it has run: `PRAGMA user_version`).
///
/// The tables PostgreSQL holds alike are written once (`SharedSchema`). Times are integer milliseconds
/// since 1970; `outbox.expiration` is whole seconds, as in the `apns-expiration` header.
enum SQLiteSchema {
    private static let shared = SharedSchema(dialect: .sqlite)

    static let migrations: [SchemaMigration] =
        [initial, outboxStateSplit, SchemaMigration(name: "idempotency-keys", sql: shared.idempotencyKeys)]
        + shared.stepsInCommon(outboxChannelColumn: "ALTER TABLE outbox_items ADD COLUMN channel_id TEXT;")
        + [outboxInFlight, outboxPushes, dropStatesChecked]

    /// Users, devices, the outbox in one table, drops and mate requests.
    private static let initial = SchemaMigration(
        name: "initial",
        sql: """
            \(shared.users)
            \(shared.devices)
            CREATE INDEX devices_by_user ON devices (user_id);
            CREATE TABLE outbox (
                id              TEXT PRIMARY KEY NOT NULL,
                \(shared.outboxSendColumns(expiration: true))
                \(shared.outboxStateColumns(expiration: false))
                created_at      INTEGER NOT NULL,
                updated_at      INTEGER NOT NULL
            );
            -- Only queued rows are indexed for claiming: state changes after the claim touch no index.
            CREATE INDEX outbox_queue ON outbox (next_attempt_at) WHERE state = 'queued';
            CREATE INDEX outbox_by_push ON outbox (push_id);
            \(shared.drops)
            CREATE INDEX drops_pending ON drops (created_at) WHERE state = 'pending';
            \(shared.mateRequests)
            """)

    /// The outbox is split in two tables sharing `seq` (the old rowid, so enqueue order is kept):
    /// `outbox_items` holds what never changes after enqueue (id, payload, headers), `outbox_state`
    /// the few columns that claim and complete rewrite. SQLite rewrites a whole record on UPDATE
    /// and a commit writes whole pages, so keeping the payload out of the updated rows makes each
    /// claim and complete dirty (and write to the WAL) a fraction of the pages. `expiration` sits
    /// with the state because claim decides on it. The view `outbox` shows the old single table.
    private static let outboxStateSplit = SchemaMigration(
        name: "outbox-state-split",
        sql: """
            CREATE TABLE outbox_items (
                seq             INTEGER PRIMARY KEY,
                id              TEXT NOT NULL UNIQUE,
                \(shared.outboxSendColumns(expiration: false))
                created_at      INTEGER NOT NULL
            );
            CREATE TABLE outbox_state (
                seq             INTEGER PRIMARY KEY,  -- outbox_items.seq
                \(shared.outboxStateColumns(expiration: true))
                updated_at      INTEGER NOT NULL
            );
            INSERT INTO outbox_items (seq, id, push_id, token, topic, push_type, priority, collapse_id, apns_id,
                                      payload, environment, created_at)
                SELECT rowid, id, push_id, token, topic, push_type, priority, collapse_id, apns_id,
                       payload, environment, created_at
                FROM outbox;
            INSERT INTO outbox_state (seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
                                      apns_unique_id, updated_at)
                SELECT rowid, state, attempts, next_attempt_at, expiration, last_status, last_reason,
                       apns_unique_id, updated_at
                FROM outbox;
            DROP TABLE outbox;
            CREATE INDEX outbox_queue ON outbox_state (next_attempt_at) WHERE state = 'queued';
            CREATE INDEX outbox_by_push ON outbox_items (push_id);
            CREATE VIEW outbox AS
                SELECT i.seq, i.id, i.push_id, i.token, i.topic, i.push_type, i.priority, s.expiration,
                       i.collapse_id, i.apns_id, i.payload, i.environment, s.state, s.attempts,
                       s.next_attempt_at, s.last_status, s.last_reason, s.apns_unique_id, i.created_at,
                       s.updated_at
                FROM outbox_items i JOIN outbox_state s ON s.seq = i.seq;
            """)

    /// In-flight outbox rows in an index of their own (`outbox_queue` holds the queued ones), so that what every
    /// metrics scrape reads (pending counts, depth, the oldest pending row) visits only pending rows, not every
    /// row kept until retention purges it.
    private static let outboxInFlight = SchemaMigration(
        name: "outbox-in-flight",
        sql: """
            CREATE INDEX outbox_in_flight ON outbox_state (seq) WHERE state = 'in_flight';
            """)

    /// `state IN (…)` of three values or more, checked on every insert and update of a drop or a mate
    /// request, made SQLite build a temporary b-tree of the values each time a statement ran: the same checks
    /// as chains of `=`, which compare in place. A changed CHECK needs the table rebuilt; `mate_requests` and
    /// `drop_engagements` refer to `drops`, so the three are rebuilt together, children after their new
    /// parent (foreign keys stay on: no row is ever without its drop), the old ones dropped children first,
    /// and the new ones renamed, which points their references at `drops` again. Every row is kept, with
    /// the same indexes.
    static let dropStatesChecked = SchemaMigration(
        name: "drop-states-checked",
        sql: """
            CREATE TABLE drops_rebuilt (
                id           TEXT PRIMARY KEY NOT NULL,
                initiator_id TEXT NOT NULL,
                peer_id      TEXT NOT NULL,
                state        TEXT NOT NULL CHECK (state = 'pending' OR state = 'matched' OR state = 'cancelled'
                                                  OR state = 'expired'),
                created_at   INTEGER NOT NULL,
                expires_at   INTEGER NOT NULL,
                matched_at   INTEGER,
                closed_at    INTEGER
            );
            INSERT INTO drops_rebuilt (id, initiator_id, peer_id, state, created_at, expires_at, matched_at, closed_at)
                SELECT id, initiator_id, peer_id, state, created_at, expires_at, matched_at, closed_at FROM drops;
            CREATE TABLE mate_requests_rebuilt (
                id           TEXT PRIMARY KEY NOT NULL,
                drop_id      TEXT NOT NULL REFERENCES drops_rebuilt (id),
                sender_id    TEXT NOT NULL,
                recipient_id TEXT NOT NULL,
                state        TEXT NOT NULL CHECK (state = 'pending' OR state = 'accepted' OR state = 'declined'),
                created_at   INTEGER NOT NULL,
                answered_at  INTEGER
            );
            INSERT INTO mate_requests_rebuilt (id, drop_id, sender_id, recipient_id, state, created_at, answered_at)
                SELECT id, drop_id, sender_id, recipient_id, state, created_at, answered_at FROM mate_requests;
            CREATE TABLE drop_engagements_rebuilt (
                user_id TEXT PRIMARY KEY NOT NULL,
                drop_id TEXT NOT NULL REFERENCES drops_rebuilt (id)
            );
            INSERT INTO drop_engagements_rebuilt (user_id, drop_id) SELECT user_id, drop_id FROM drop_engagements;
            DROP TABLE drop_engagements;
            DROP TABLE mate_requests;
            DROP TABLE drops;
            ALTER TABLE drops_rebuilt RENAME TO drops;
            ALTER TABLE mate_requests_rebuilt RENAME TO mate_requests;
            ALTER TABLE drop_engagements_rebuilt RENAME TO drop_engagements;
            CREATE INDEX drops_pending ON drops (created_at) WHERE state = 'pending';
            CREATE INDEX drops_matched_by_initiator ON drops (initiator_id, matched_at) WHERE state = 'matched';
            CREATE INDEX drops_matched_by_peer ON drops (peer_id, matched_at) WHERE state = 'matched';
            CREATE INDEX mate_requests_by_recipient ON mate_requests (recipient_id);
            CREATE INDEX mate_requests_by_sender ON mate_requests (sender_id);
            CREATE INDEX mate_requests_by_drop ON mate_requests (drop_id);
            CREATE INDEX drop_engagements_by_drop ON drop_engagements (drop_id);
            """)
}
