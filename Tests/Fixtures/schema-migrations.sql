==== sqlite 1 initial
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
==== sqlite 2 outbox-state-split
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
==== sqlite 3 idempotency-keys
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
==== sqlite 4 drop-engagements
UPDATE drops SET state = 'matched',
    matched_at = (SELECT min(created_at) FROM mate_requests m WHERE m.drop_id = drops.id)
WHERE state = 'pending' AND EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = drops.id);
CREATE TABLE drop_engagements (
    user_id TEXT PRIMARY KEY NOT NULL,
    drop_id TEXT NOT NULL REFERENCES drops (id)
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
==== sqlite 5 webhooks
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
==== sqlite 6 broadcast-channels
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
==== sqlite 7 live-activity-tokens
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
==== sqlite 8 live-activity-budget
CREATE TABLE activity_budget (
    activity_id TEXT NOT NULL,
    sent_at     INTEGER NOT NULL
);
CREATE INDEX activity_budget_by_activity ON activity_budget (activity_id, sent_at);
CREATE INDEX activity_budget_by_time ON activity_budget (sent_at);
CREATE INDEX activity_tokens_retired ON activity_tokens (retired_at) WHERE retired_at IS NOT NULL;
==== sqlite 9 outbox-in-flight
CREATE INDEX outbox_in_flight ON outbox_state (seq) WHERE state = 'in_flight';
==== sqlite 10 outbox-pushes
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
           CASE WHEN i.id GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' THEN substr(i.id, 1, 28) || '00000000' ELSE i.id END,
           CASE WHEN i.id GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' THEN ((instr('0123456789abcdef', substr(i.id, 29, 1)) - 1) << 28) + ((instr('0123456789abcdef', substr(i.id, 30, 1)) - 1) << 24) + ((instr('0123456789abcdef', substr(i.id, 31, 1)) - 1) << 20) + ((instr('0123456789abcdef', substr(i.id, 32, 1)) - 1) << 16) + ((instr('0123456789abcdef', substr(i.id, 33, 1)) - 1) << 12) + ((instr('0123456789abcdef', substr(i.id, 34, 1)) - 1) << 8) + ((instr('0123456789abcdef', substr(i.id, 35, 1)) - 1) << 4) + ((instr('0123456789abcdef', substr(i.id, 36, 1)) - 1) << 0) ELSE 0 END,
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
               g.lo IS NOT NULL AND NOT (CASE WHEN coalesce(length(g.done), 0) > (v.seq - g.lo) / 8 THEN (((instr('0123456789ABCDEF', substr(hex(substr(g.done, (v.seq - g.lo) / 8 + 1, 1)), 1, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(hex(substr(g.done, (v.seq - g.lo) / 8 + 1, 1)), 2, 1)) - 1) >> ((v.seq - g.lo) % 8)) & 1 ELSE 0 END) AS pending,
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
==== sqlite 11 drop-states-checked
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
==== postgres 1 initial
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
==== postgres 2 outbox
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
==== postgres 3 drop-engagements
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
==== postgres 4 webhooks
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
==== postgres 5 broadcast-channels
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
==== postgres 6 live-activity-tokens
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
==== postgres 7 live-activity-budget
CREATE TABLE activity_budget (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    activity_id text COLLATE "C" NOT NULL,
    sent_at     bigint NOT NULL
);
CREATE INDEX activity_budget_by_activity ON activity_budget (activity_id, sent_at);
CREATE INDEX activity_budget_by_time ON activity_budget (sent_at);
CREATE INDEX activity_tokens_retired ON activity_tokens (retired_at) WHERE retired_at IS NOT NULL;
==== postgres 8 outbox-items-and-state
CREATE TABLE outbox_items (
    id          text COLLATE "C" NOT NULL,
    seq         bigint GENERATED BY DEFAULT AS IDENTITY (SEQUENCE NAME outbox_seq),
    push_id     text COLLATE "C" NOT NULL,
    token       text NOT NULL,
    topic       text NOT NULL,
    push_type   text NOT NULL,
    priority    integer,
    expiration  bigint,
    collapse_id text,
    apns_id     text,
    payload     bytea NOT NULL,
    environment text NOT NULL,
    channel_id  text,
    created_at  bigint NOT NULL
);
CREATE TABLE outbox_state (
    id              text COLLATE "C" NOT NULL,
    seq             bigint NOT NULL,
    state           text NOT NULL CHECK (state IN
                    ('queued', 'in_flight', 'accepted', 'rejected', 'failed', 'expired')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    expiration      bigint,
    last_status     integer,
    last_reason     text,
    apns_unique_id  text,
    updated_at      bigint NOT NULL,
    owner           text,
    lease_until     bigint
);
INSERT INTO outbox_items (id, seq, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id,
        payload, environment, channel_id, created_at)
    SELECT id, seq, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id,
        payload, environment, channel_id, created_at FROM outbox;
INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
        apns_unique_id, updated_at, owner, lease_until)
    SELECT id, seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
        apns_unique_id, updated_at, owner, lease_until FROM outbox;
SELECT setval('outbox_seq', coalesce((SELECT max(seq) FROM outbox_items), 0) + 1, false);
DROP TABLE outbox;
ALTER TABLE outbox_items ADD PRIMARY KEY (id);
ALTER TABLE outbox_state ADD PRIMARY KEY (id);
CREATE INDEX outbox_items_by_push ON outbox_items (push_id, seq);
CREATE INDEX outbox_queue ON outbox_state (next_attempt_at, seq) WHERE state = 'queued';
CREATE INDEX outbox_leases ON outbox_state (lease_until, seq) WHERE lease_until IS NOT NULL;
CREATE INDEX outbox_finished ON outbox_state (updated_at)
    WHERE state IN ('accepted', 'rejected', 'failed', 'expired');
CREATE VIEW outbox AS
    SELECT i.seq, i.id, i.push_id, i.token, i.topic, i.push_type, i.priority, i.expiration, i.collapse_id,
        i.apns_id, i.payload, i.environment, s.state, s.attempts, s.next_attempt_at, s.last_status,
        s.last_reason, s.apns_unique_id, i.created_at, s.updated_at, s.owner, s.lease_until, i.channel_id
    FROM outbox_items i JOIN outbox_state s ON s.id = i.id;
ANALYZE outbox_items;
ANALYZE outbox_state;
==== postgres 9 outbox-due
ALTER TABLE outbox_state ADD COLUMN due bigint, ADD COLUMN ended_at bigint;
UPDATE outbox_state SET
    due = CASE WHEN state IN ('queued', 'in_flight') THEN next_attempt_at END,
    ended_at = CASE WHEN state IN ('accepted', 'rejected', 'failed', 'expired') THEN updated_at END;
DROP INDEX outbox_queue;
DROP INDEX outbox_leases;
DROP INDEX outbox_finished;
CREATE INDEX outbox_due ON outbox_state (due, seq) WHERE due IS NOT NULL;
CREATE INDEX outbox_ended ON outbox_state (ended_at) WHERE ended_at IS NOT NULL;
ALTER TABLE outbox_state SET (fillfactor = 50);
ANALYZE outbox_state;
==== postgres 10 outbox-segments
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
==== postgres 11 outbox-items-by-push
DROP INDEX outbox_items_by_push;
CREATE INDEX outbox_items_by_push ON outbox_items (push_id);
==== postgres 12 outbox-pushes
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
==== postgres 13 outbox-targets-lz4
DO $body$
BEGIN
    ALTER TABLE outbox_pushes ALTER COLUMN targets SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$body$;
