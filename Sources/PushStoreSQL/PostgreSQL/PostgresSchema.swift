import PostgresDriver
import PushStore

/// The PostgreSQL schema as an ordered list of migrations. Append new steps; never edit shipped ones.
///
/// As in the SQLite schema, times are integer milliseconds since 1970 (exact comparisons for Apple's 410
/// timestamp rule) and `outbox.expiration` is whole seconds. Keys and ids compare byte by byte
/// (`COLLATE "C"`), so orderings match SQLite's whatever the database's default collation.
enum PostgresSchema {
    static let migrations: [PostgresMigration] = [
        PostgresMigration(
            name: "initial",
            sql: """
                CREATE TABLE users (
                    id         text COLLATE "C" PRIMARY KEY,
                    card       text NOT NULL,
                    created_at bigint NOT NULL,
                    updated_at bigint NOT NULL
                );
                CREATE TABLE devices (
                    token          text COLLATE "C" NOT NULL,
                    topic          text COLLATE "C" NOT NULL,
                    user_id        text COLLATE "C" NOT NULL,
                    environment    text NOT NULL CHECK (environment IN ('production', 'development')),
                    registered_at  bigint NOT NULL,
                    last_seen      bigint NOT NULL,
                    invalidated_at bigint,
                    invalid_reason text,
                    PRIMARY KEY (token, topic)
                );
                CREATE INDEX devices_by_user ON devices (user_id, registered_at);
                CREATE TABLE drops (
                    id           text COLLATE "C" PRIMARY KEY,
                    initiator_id text COLLATE "C" NOT NULL,
                    peer_id      text COLLATE "C" NOT NULL,
                    state        text NOT NULL CHECK (state IN ('pending', 'matched', 'cancelled', 'expired')),
                    created_at   bigint NOT NULL,
                    expires_at   bigint NOT NULL,
                    matched_at   bigint,
                    closed_at    bigint
                );
                CREATE INDEX drops_pending ON drops (created_at, id) WHERE state = 'pending';
                CREATE TABLE mate_requests (
                    id           text COLLATE "C" PRIMARY KEY,
                    drop_id      text COLLATE "C" NOT NULL REFERENCES drops (id),
                    sender_id    text COLLATE "C" NOT NULL,
                    recipient_id text COLLATE "C" NOT NULL,
                    state        text NOT NULL CHECK (state IN ('pending', 'accepted', 'declined')),
                    created_at   bigint NOT NULL,
                    answered_at  bigint
                );
                CREATE INDEX mate_requests_by_recipient ON mate_requests (recipient_id);
                CREATE INDEX mate_requests_by_sender ON mate_requests (sender_id);
                CREATE INDEX mate_requests_by_drop ON mate_requests (drop_id);
                CREATE TABLE idempotency_keys (
                    scope       text COLLATE "C" NOT NULL,
                    key         text COLLATE "C" NOT NULL,
                    fingerprint bytea NOT NULL,
                    status      integer,
                    body        bytea NOT NULL,
                    created_at  bigint NOT NULL,
                    PRIMARY KEY (scope, key)
                );
                CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
                """),
        // The outbox. `seq` numbers rows in enqueue order. A claim is a lease: `owner` (the claiming
        // instance) and `lease_until` (ms) are set on in-flight rows, and another instance may claim a row
        // again only after `lease_until`; `attempts` counted by each claim is the fence of `complete`.
        PostgresMigration(
            name: "outbox",
            sql: """
                CREATE TABLE outbox (
                    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    id              text COLLATE "C" NOT NULL UNIQUE,
                    push_id         text COLLATE "C" NOT NULL,
                    token           text NOT NULL,
                    topic           text NOT NULL,
                    push_type       text NOT NULL,
                    priority        integer,
                    expiration      bigint,
                    collapse_id     text,
                    apns_id         text,
                    payload         bytea NOT NULL,
                    environment     text NOT NULL,
                    state           text NOT NULL CHECK (state IN
                                    ('queued', 'in_flight', 'accepted', 'rejected', 'failed', 'expired')),
                    attempts        integer NOT NULL DEFAULT 0,
                    next_attempt_at bigint NOT NULL,
                    last_status     integer,
                    last_reason     text,
                    apns_unique_id  text,
                    created_at      bigint NOT NULL,
                    updated_at      bigint NOT NULL,
                    owner           text,
                    lease_until     bigint
                );
                CREATE INDEX outbox_queue ON outbox (next_attempt_at, seq) WHERE state = 'queued';
                CREATE INDEX outbox_leases ON outbox (lease_until) WHERE state = 'in_flight';
                CREATE INDEX outbox_pending ON outbox (seq) WHERE state IN ('queued', 'in_flight');
                CREATE INDEX outbox_by_push ON outbox (push_id, seq);
                CREATE INDEX outbox_finished ON outbox (updated_at) WHERE state IN ('accepted', 'rejected', 'failed', 'expired');
                """),
        // Profile-drop engagements: one row per user engaged by a pending drop, so "at most one pending drop
        // per user" is the primary key (as in SQLite's step of the same name, with the same fix-ups of drops
        // the previous version left pending).
        PostgresMigration(
            name: "drop-engagements",
            sql: """
                UPDATE drops SET state = 'matched',
                    matched_at = (SELECT min(created_at) FROM mate_requests m WHERE m.drop_id = drops.id)
                WHERE state = 'pending' AND EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = drops.id);
                CREATE TABLE drop_engagements (
                    user_id text COLLATE "C" PRIMARY KEY,
                    drop_id text COLLATE "C" NOT NULL REFERENCES drops (id)
                );
                CREATE INDEX drop_engagements_by_drop ON drop_engagements (drop_id);
                INSERT INTO drop_engagements (user_id, drop_id)
                    SELECT initiator_id, id FROM drops WHERE state = 'pending' ORDER BY created_at, id
                    ON CONFLICT DO NOTHING;
                INSERT INTO drop_engagements (user_id, drop_id)
                    SELECT peer_id, id FROM drops WHERE state = 'pending' ORDER BY created_at, id
                    ON CONFLICT DO NOTHING;
                CREATE INDEX drops_matched_by_initiator ON drops (initiator_id, matched_at) WHERE state = 'matched';
                CREATE INDEX drops_matched_by_peer ON drops (peer_id, matched_at) WHERE state = 'matched';
                """),
        // Webhooks: operators' endpoints, and one row per event and subscribed endpoint. A row in flight keeps
        // its lease deadline in `next_attempt_at` and its instance in `owner`, so one index finds due and
        // abandoned rows alike.
        PostgresMigration(
            name: "webhooks",
            sql: """
                CREATE TABLE webhook_endpoints (
                    id         text COLLATE "C" PRIMARY KEY,
                    url        text NOT NULL,
                    events     text NOT NULL,
                    secret     text NOT NULL,
                    source     text NOT NULL CHECK (source IN ('api', 'config')),
                    created_at bigint NOT NULL
                );
                CREATE TABLE webhook_events (
                    seq             bigserial PRIMARY KEY,
                    event_id        text COLLATE "C" NOT NULL,
                    endpoint_id     text COLLATE "C" NOT NULL,
                    type            text NOT NULL,
                    body            bytea NOT NULL,
                    state           text NOT NULL CHECK (state IN ('pending', 'in_flight', 'delivered', 'failed')),
                    attempts        bigint NOT NULL DEFAULT 0,
                    next_attempt_at bigint NOT NULL,
                    owner           text,
                    last_status     bigint,
                    last_error      text,
                    created_at      bigint NOT NULL,
                    updated_at      bigint NOT NULL,
                    UNIQUE (endpoint_id, event_id)
                );
                CREATE INDEX webhook_events_due ON webhook_events (endpoint_id, next_attempt_at)
                    WHERE state IN ('pending', 'in_flight');
                CREATE INDEX webhook_events_by_endpoint ON webhook_events (endpoint_id, updated_at);
                CREATE INDEX webhook_events_final ON webhook_events (updated_at) WHERE state IN ('delivered', 'failed');
                """),
        // Broadcast channels per app topic and environment, and outbox rows that publish on one of them
        // (`channel_id` set, `token` empty), as in SQLite's step of the same name.
        PostgresMigration(
            name: "broadcast-channels",
            sql: """
                CREATE TABLE channels (
                    id             text COLLATE "C" NOT NULL,
                    topic          text COLLATE "C" NOT NULL,
                    environment    text NOT NULL CHECK (environment IN ('production', 'development')),
                    storage_policy integer NOT NULL,
                    created_at     bigint NOT NULL,
                    PRIMARY KEY (id, environment)
                );
                CREATE INDEX channels_by_topic ON channels (topic, environment, created_at);
                ALTER TABLE outbox ADD COLUMN channel_id text;
                """),
        // ActivityKit push tokens: push-to-start tokens per attributes type and update tokens per Live
        // Activity, which retire when their activity ends (`retired_at`).
        PostgresMigration(
            name: "live-activity-tokens",
            sql: """
                CREATE TABLE activity_tokens (
                    token           text COLLATE "C" NOT NULL,
                    topic           text COLLATE "C" NOT NULL,
                    user_id         text COLLATE "C" NOT NULL,
                    environment     text NOT NULL CHECK (environment IN ('production', 'development')),
                    kind            text NOT NULL CHECK (kind IN ('push_to_start', 'live_activity')),
                    attributes_type text,
                    activity_id     text COLLATE "C",
                    registered_at   bigint NOT NULL,
                    retired_at      bigint,
                    PRIMARY KEY (token, topic)
                );
                CREATE INDEX activity_tokens_by_user ON activity_tokens (user_id, registered_at);
                CREATE INDEX activity_tokens_by_activity ON activity_tokens (activity_id);
                """),
        // The service's budget of priority-10 Live Activity updates, as in SQLite's step of the same name;
        // instances take from it one at a time per activity (an advisory lock on the activity id).
        PostgresMigration(
            name: "live-activity-budget",
            sql: """
                CREATE TABLE activity_budget (
                    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    activity_id text COLLATE "C" NOT NULL,
                    sent_at     bigint NOT NULL
                );
                CREATE INDEX activity_budget_by_activity ON activity_budget (activity_id, sent_at);
                CREATE INDEX activity_budget_by_time ON activity_budget (sent_at);
                CREATE INDEX activity_tokens_retired ON activity_tokens (retired_at) WHERE retired_at IS NOT NULL;
                """),
        outboxSplit,
        outboxDue,
        outboxSegments,
        outboxByPush,
    ]
}
