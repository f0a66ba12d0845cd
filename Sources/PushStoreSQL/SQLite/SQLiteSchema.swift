import PushStore
import SQLiteDriver

/// The SQLite schema as an ordered list of migrations. Append new steps; never edit shipped ones.
///
/// Times are integer milliseconds since 1970 (exact comparisons for Apple's 410 timestamp rule);
/// `outbox.expiration` is whole seconds, as in the `apns-expiration` header.
enum SQLiteSchema {
    static let migrations: [SQLiteMigration] = [
        SQLiteMigration(
            name: "initial",
            sql: """
                CREATE TABLE users (
                    id         TEXT PRIMARY KEY NOT NULL,
                    card       TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE TABLE devices (
                    token          TEXT NOT NULL,
                    topic          TEXT NOT NULL,
                    user_id        TEXT NOT NULL,
                    environment    TEXT NOT NULL CHECK (environment IN ('production', 'development')),
                    registered_at  INTEGER NOT NULL,
                    last_seen      INTEGER NOT NULL,
                    invalidated_at INTEGER,
                    invalid_reason TEXT,
                    UNIQUE (token, topic)
                );
                CREATE INDEX devices_by_user ON devices (user_id);
                CREATE TABLE outbox (
                    id              TEXT PRIMARY KEY NOT NULL,
                    push_id         TEXT NOT NULL,
                    token           TEXT NOT NULL,
                    topic           TEXT NOT NULL,
                    push_type       TEXT NOT NULL,
                    priority        INTEGER,
                    expiration      INTEGER,
                    collapse_id     TEXT,
                    apns_id         TEXT,
                    payload         BLOB NOT NULL,
                    environment     TEXT NOT NULL,
                    state           TEXT NOT NULL CHECK (state IN
                                    ('queued', 'in_flight', 'accepted', 'rejected', 'failed', 'expired')),
                    attempts        INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    last_status     INTEGER,
                    last_reason     TEXT,
                    apns_unique_id  TEXT,
                    created_at      INTEGER NOT NULL,
                    updated_at      INTEGER NOT NULL
                );
                -- Only queued rows are indexed for claiming: state changes after the claim touch no index.
                CREATE INDEX outbox_queue ON outbox (next_attempt_at) WHERE state = 'queued';
                CREATE INDEX outbox_by_push ON outbox (push_id);
                CREATE TABLE drops (
                    id           TEXT PRIMARY KEY NOT NULL,
                    initiator_id TEXT NOT NULL,
                    peer_id      TEXT NOT NULL,
                    state        TEXT NOT NULL CHECK (state IN ('pending', 'matched', 'cancelled', 'expired')),
                    created_at   INTEGER NOT NULL,
                    expires_at   INTEGER NOT NULL,
                    matched_at   INTEGER,
                    closed_at    INTEGER
                );
                CREATE INDEX drops_pending ON drops (created_at) WHERE state = 'pending';
                CREATE TABLE mate_requests (
                    id           TEXT PRIMARY KEY NOT NULL,
                    drop_id      TEXT NOT NULL REFERENCES drops (id),
                    sender_id    TEXT NOT NULL,
                    recipient_id TEXT NOT NULL,
                    state        TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'declined')),
                    created_at   INTEGER NOT NULL,
                    answered_at  INTEGER
                );
                CREATE INDEX mate_requests_by_recipient ON mate_requests (recipient_id);
                CREATE INDEX mate_requests_by_sender ON mate_requests (sender_id);
                CREATE INDEX mate_requests_by_drop ON mate_requests (drop_id);
                """),
        // The outbox is split in two tables sharing `seq` (the old rowid, so enqueue order is kept):
        // `outbox_items` holds what never changes after enqueue (id, payload, headers), `outbox_state`
        // the few columns that claim and complete rewrite. SQLite rewrites a whole record on UPDATE
        // and a commit writes whole pages, so keeping the payload out of the updated rows makes each
        // claim and complete dirty (and write to the WAL) a fraction of the pages. `expiration` sits
        // with the state because claim decides on it. The view `outbox` shows the old single table.
        SQLiteMigration(
            name: "outbox-state-split",
            sql: """
                CREATE TABLE outbox_items (
                    seq         INTEGER PRIMARY KEY,
                    id          TEXT NOT NULL UNIQUE,
                    push_id     TEXT NOT NULL,
                    token       TEXT NOT NULL,
                    topic       TEXT NOT NULL,
                    push_type   TEXT NOT NULL,
                    priority    INTEGER,
                    collapse_id TEXT,
                    apns_id     TEXT,
                    payload     BLOB NOT NULL,
                    environment TEXT NOT NULL,
                    created_at  INTEGER NOT NULL
                );
                CREATE TABLE outbox_state (
                    seq             INTEGER PRIMARY KEY,  -- outbox_items.seq
                    state           TEXT NOT NULL CHECK (state IN
                                    ('queued', 'in_flight', 'accepted', 'rejected', 'failed', 'expired')),
                    attempts        INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    expiration      INTEGER,
                    last_status     INTEGER,
                    last_reason     TEXT,
                    apns_unique_id  TEXT,
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
                """),
        // Idempotency-Key records: the request's body hash and, once it is answered, the answer.
        SQLiteMigration(
            name: "idempotency-keys",
            sql: """
                CREATE TABLE idempotency_keys (
                    scope       TEXT NOT NULL,
                    key         TEXT NOT NULL,
                    fingerprint BLOB NOT NULL,
                    status      INTEGER,
                    body        BLOB NOT NULL,
                    created_at  INTEGER NOT NULL,
                    PRIMARY KEY (scope, key)
                );
                CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
                """),
        // Profile-drop engagements: one row per user engaged by a pending drop, so "at most one pending drop
        // per user" is the primary key. A drop the previous version left pending with mate requests stored
        // (caught mid-match) is matched; the other pending drops engage their users, oldest first.
        SQLiteMigration(
            name: "drop-engagements",
            sql: """
                UPDATE drops SET state = 'matched',
                    matched_at = (SELECT min(created_at) FROM mate_requests m WHERE m.drop_id = drops.id)
                WHERE state = 'pending' AND EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = drops.id);
                CREATE TABLE drop_engagements (
                    user_id TEXT PRIMARY KEY NOT NULL,
                    drop_id TEXT NOT NULL REFERENCES drops (id)
                );
                CREATE INDEX drop_engagements_by_drop ON drop_engagements (drop_id);
                INSERT OR IGNORE INTO drop_engagements (user_id, drop_id)
                    SELECT initiator_id, id FROM drops WHERE state = 'pending' ORDER BY created_at, id;
                INSERT OR IGNORE INTO drop_engagements (user_id, drop_id)
                    SELECT peer_id, id FROM drops WHERE state = 'pending' ORDER BY created_at, id;
                CREATE INDEX drops_matched_by_initiator ON drops (initiator_id, matched_at) WHERE state = 'matched';
                CREATE INDEX drops_matched_by_peer ON drops (peer_id, matched_at) WHERE state = 'matched';
                """),
        // Webhooks: operators' endpoints, and one row per event and subscribed endpoint. A row in flight keeps
        // its lease deadline in `next_attempt_at`, so one index finds both due and abandoned rows.
        SQLiteMigration(
            name: "webhooks",
            sql: """
                CREATE TABLE webhook_endpoints (
                    id         TEXT PRIMARY KEY NOT NULL,
                    url        TEXT NOT NULL,
                    events     TEXT NOT NULL,
                    secret     TEXT NOT NULL,
                    source     TEXT NOT NULL CHECK (source IN ('api', 'config')),
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE webhook_events (
                    seq             INTEGER PRIMARY KEY,
                    event_id        TEXT NOT NULL,
                    endpoint_id     TEXT NOT NULL,
                    type            TEXT NOT NULL,
                    body            BLOB NOT NULL,
                    state           TEXT NOT NULL CHECK (state IN ('pending', 'in_flight', 'delivered', 'failed')),
                    attempts        INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    owner           TEXT,
                    last_status     INTEGER,
                    last_error      TEXT,
                    created_at      INTEGER NOT NULL,
                    updated_at      INTEGER NOT NULL,
                    UNIQUE (endpoint_id, event_id)
                );
                CREATE INDEX webhook_events_due ON webhook_events (endpoint_id, next_attempt_at)
                    WHERE state IN ('pending', 'in_flight');
                CREATE INDEX webhook_events_by_endpoint ON webhook_events (endpoint_id, updated_at);
                CREATE INDEX webhook_events_final ON webhook_events (updated_at) WHERE state IN ('delivered', 'failed');
                """),
        // Broadcast channels per app topic and environment, and outbox rows that publish on one of them
        // (`channel_id` set, `token` empty) instead of going to a device.
        SQLiteMigration(
            name: "broadcast-channels",
            sql: """
                CREATE TABLE channels (
                    id             TEXT NOT NULL,
                    topic          TEXT NOT NULL,
                    environment    TEXT NOT NULL CHECK (environment IN ('production', 'development')),
                    storage_policy INTEGER NOT NULL,
                    created_at     INTEGER NOT NULL,
                    PRIMARY KEY (id, environment)
                );
                CREATE INDEX channels_by_topic ON channels (topic, environment, created_at);
                ALTER TABLE outbox_items ADD COLUMN channel_id TEXT;
                """),
        // ActivityKit push tokens: push-to-start tokens per attributes type and update tokens per Live
        // Activity, which retire when their activity ends (`retired_at`).
        SQLiteMigration(
            name: "live-activity-tokens",
            sql: """
                CREATE TABLE activity_tokens (
                    token           TEXT NOT NULL,
                    topic           TEXT NOT NULL,
                    user_id         TEXT NOT NULL,
                    environment     TEXT NOT NULL CHECK (environment IN ('production', 'development')),
                    kind            TEXT NOT NULL CHECK (kind IN ('push_to_start', 'live_activity')),
                    attributes_type TEXT,
                    activity_id     TEXT,
                    registered_at   INTEGER NOT NULL,
                    retired_at      INTEGER,
                    PRIMARY KEY (token, topic)
                );
                CREATE INDEX activity_tokens_by_user ON activity_tokens (user_id, registered_at);
                CREATE INDEX activity_tokens_by_activity ON activity_tokens (activity_id);
                """),
        // The service's budget of priority-10 Live Activity updates: one row per update sent at priority 10,
        // counted per activity over the last hour (rows past it are purged). Retired tokens are purged too.
        SQLiteMigration(
            name: "live-activity-budget",
            sql: """
                CREATE TABLE activity_budget (
                    activity_id TEXT NOT NULL,
                    sent_at     INTEGER NOT NULL
                );
                CREATE INDEX activity_budget_by_activity ON activity_budget (activity_id, sent_at);
                CREATE INDEX activity_budget_by_time ON activity_budget (sent_at);
                CREATE INDEX activity_tokens_retired ON activity_tokens (retired_at) WHERE retired_at IS NOT NULL;
                """),
        // In-flight outbox rows in an index of their own (`outbox_queue` holds the queued ones), so that what every
        // metrics scrape reads (pending counts, depth, the oldest pending row) visits only pending rows, not every
        // row kept until retention purges it.
        SQLiteMigration(
            name: "outbox-in-flight",
            sql: """
                CREATE INDEX outbox_in_flight ON outbox_state (seq) WHERE state = 'in_flight';
                """),
    ]
}
