/// The store's schema as an ordered list of migrations. Append new steps; never edit shipped ones.
///
/// Times are integer milliseconds since 1970 (exact comparisons for Apple's 410 timestamp rule);
/// `outbox.expiration` is whole seconds, as in the `apns-expiration` header.
enum PushStoreSchema {
    static let migrations: [SQLiteMigration] = [
        SQLiteMigration(name: "initial", sql: """
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
    ]
}
