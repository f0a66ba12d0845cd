/// The tables both databases hold alike, written once in the dialect's column types: each schema's
/// migrations (`SQLiteSchema`, `PostgresSchema`) put them in its own steps, beside what only it has (the
/// outbox tables, some indexes).
///
/// Times are integer milliseconds since 1970 (exact comparisons for Apple's 410 timestamp rule). Keys and
/// ids compare byte by byte: SQLite's default, `COLLATE "C"` on PostgreSQL, so orderings match whatever the
/// PostgreSQL database's default collation.
struct SharedSchema {
    let dialect: SQLDialect

    /// The steps both schemas run one after the other, in this order, after their first outbox steps:
    /// drop engagements, webhooks, broadcast channels (with `outboxChannelColumn`, the statement giving the
    /// schema's outbox its `channel_id`), Live Activity tokens, and the priority budget.
    func stepsInCommon(outboxChannelColumn: String) -> [SchemaMigration] {
        [
            SchemaMigration(name: "drop-engagements", sql: dropEngagements),
            SchemaMigration(name: "webhooks", sql: webhooks),
            SchemaMigration(name: "broadcast-channels", sql: channels + "\n" + outboxChannelColumn),
            SchemaMigration(name: "live-activity-tokens", sql: activityTokens),
            SchemaMigration(name: "live-activity-budget", sql: activityBudget),
        ]
    }

    /// A key or id: compared byte by byte.
    private var key: String { dialect == .sqlite ? "TEXT" : "text COLLATE \"C\"" }
    private var text: String { dialect == .sqlite ? "TEXT" : "text" }
    /// A 32-bit integer on PostgreSQL (SQLite's integers have no width).
    private var int: String { dialect == .sqlite ? "INTEGER" : "integer" }
    /// A 64-bit integer: times, counts.
    private var bigint: String { dialect == .sqlite ? "INTEGER" : "bigint" }
    private var bytes: String { dialect == .sqlite ? "BLOB" : "bytea" }
    /// A one-column primary key (SQLite's would take NULLs without `NOT NULL`).
    private var primaryKey: String { dialect == .sqlite ? "PRIMARY KEY NOT NULL" : "PRIMARY KEY" }
    /// A column numbering rows in insert order, the table's key.
    private var sequence: String { dialect == .sqlite ? "INTEGER PRIMARY KEY" : "bigserial PRIMARY KEY" }

    /// Column definitions, one a line, each ending in a comma, as they stand in a `CREATE TABLE` body (lines
    /// after the first indented to match): `(name, type)`, the name padded so the types line up.
    private func columns(_ definitions: [(String, String)]) -> String {
        definitions.map { name, type in name + String(repeating: " ", count: max(1, 16 - name.count)) + type + "," }
            .joined(separator: "\n    ")
    }

    /// What an outbox row sends, `push_id` to `environment`, with its `expiration` where a schema keeps it
    /// there (PostgreSQL; SQLite keeps it with the state, which the claim reads).
    func outboxSendColumns(expiration: Bool) -> String {
        var list = [
            ("push_id", "\(key) NOT NULL"), ("token", "\(text) NOT NULL"), ("topic", "\(text) NOT NULL"),
            ("push_type", "\(text) NOT NULL"), ("priority", int),
        ]
        if expiration { list.append(("expiration", bigint)) }
        list += [("collapse_id", text), ("apns_id", text), ("payload", "\(bytes) NOT NULL"), ("environment", "\(text) NOT NULL")]
        return columns(list)
    }

    /// What claims and completions change in an outbox row, `state` to `apns_unique_id` (the times and the
    /// lease apart), with its `expiration` where a schema keeps it there.
    func outboxStateColumns(expiration: Bool) -> String {
        let states = "('queued', 'in_flight', 'accepted', 'rejected', 'failed', 'expired')"
        var list = [
            ("state", "\(text) NOT NULL CHECK (state IN\n                \(states))"),
            ("attempts", "\(int) NOT NULL DEFAULT 0"), ("next_attempt_at", "\(bigint) NOT NULL"),
        ]
        if expiration { list.append(("expiration", bigint)) }
        list += [("last_status", int), ("last_reason", text), ("apns_unique_id", text)]
        return columns(list)
    }

    /// The columns a device and an ActivityKit token are registered under: the token, its app's topic, its
    /// user and its APNs environment.
    private var registeredTokenColumns: String {
        """
        token          \(key) NOT NULL,
            topic          \(key) NOT NULL,
            user_id        \(key) NOT NULL,
            \(environmentColumn)
        """
    }

    /// A row's APNs environment.
    private var environmentColumn: String {
        "environment    \(text) NOT NULL CHECK (environment IN ('production', 'development')),"
    }

    /// Users and their profile cards.
    var users: String {
        """
        CREATE TABLE users (
            id         \(key) \(primaryKey),
            card       \(text) NOT NULL,
            created_at \(bigint) NOT NULL,
            updated_at \(bigint) NOT NULL
        );
        """
    }

    /// Device tokens per app topic (each schema indexes them by user its own way).
    var devices: String {
        """
        CREATE TABLE devices (
            \(registeredTokenColumns)
            registered_at  \(bigint) NOT NULL,
            last_seen      \(bigint) NOT NULL,
            invalidated_at \(bigint),
            invalid_reason \(text),
            \(dialect == .sqlite ? "UNIQUE" : "PRIMARY KEY") (token, topic)
        );
        """
    }

    /// Profile drops (each schema indexes the pending ones its own way).
    var drops: String {
        """
        CREATE TABLE drops (
            id           \(key) \(primaryKey),
            initiator_id \(key) NOT NULL,
            peer_id      \(key) NOT NULL,
            state        \(text) NOT NULL CHECK (state IN ('pending', 'matched', 'cancelled', 'expired')),
            created_at   \(bigint) NOT NULL,
            expires_at   \(bigint) NOT NULL,
            matched_at   \(bigint),
            closed_at    \(bigint)
        );
        """
    }

    /// Mate requests of matched drops.
    var mateRequests: String {
        """
        CREATE TABLE mate_requests (
            id           \(key) \(primaryKey),
            drop_id      \(key) NOT NULL REFERENCES drops (id),
            sender_id    \(key) NOT NULL,
            recipient_id \(key) NOT NULL,
            state        \(text) NOT NULL CHECK (state IN ('pending', 'accepted', 'declined')),
            created_at   \(bigint) NOT NULL,
            answered_at  \(bigint)
        );
        CREATE INDEX mate_requests_by_recipient ON mate_requests (recipient_id);
        CREATE INDEX mate_requests_by_sender ON mate_requests (sender_id);
        CREATE INDEX mate_requests_by_drop ON mate_requests (drop_id);
        """
    }

    /// Idempotency-Key records: the request's body hash and, once it is answered, the answer.
    var idempotencyKeys: String {
        """
        CREATE TABLE idempotency_keys (
            scope       \(key) NOT NULL,
            key         \(key) NOT NULL,
            fingerprint \(bytes) NOT NULL,
            status      \(int),
            body        \(bytes) NOT NULL,
            created_at  \(bigint) NOT NULL,
            PRIMARY KEY (scope, key)
        );
        CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
        """
    }

    /// Profile-drop engagements: one row per user engaged by a pending drop, so "at most one pending drop
    /// per user" is the primary key. A drop the previous version left pending with mate requests stored
    /// (caught mid-match) is matched; the other pending drops engage their users, oldest first.
    var dropEngagements: String {
        """
        UPDATE drops SET state = 'matched',
            matched_at = (SELECT min(created_at) FROM mate_requests m WHERE m.drop_id = drops.id)
        WHERE state = 'pending' AND EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = drops.id);
        CREATE TABLE drop_engagements (
            user_id \(key) \(primaryKey),
            drop_id \(key) NOT NULL REFERENCES drops (id)
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
        """
    }

    /// Webhooks: operators' endpoints, and one row per event and subscribed endpoint. A row in flight keeps
    /// its lease deadline in `next_attempt_at` (and, on PostgreSQL, its instance in `owner`), so one index
    /// finds due and abandoned rows alike.
    var webhooks: String {
        """
        CREATE TABLE webhook_endpoints (
            id         \(key) \(primaryKey),
            url        \(text) NOT NULL,
            events     \(text) NOT NULL,
            secret     \(text) NOT NULL,
            source     \(text) NOT NULL CHECK (source IN ('api', 'config')),
            created_at \(bigint) NOT NULL
        );
        CREATE TABLE webhook_events (
            seq             \(sequence),
            event_id        \(key) NOT NULL,
            endpoint_id     \(key) NOT NULL,
            type            \(text) NOT NULL,
            body            \(bytes) NOT NULL,
            state           \(text) NOT NULL CHECK (state IN ('pending', 'in_flight', 'delivered', 'failed')),
            attempts        \(bigint) NOT NULL DEFAULT 0,
            next_attempt_at \(bigint) NOT NULL,
            owner           \(text),
            last_status     \(bigint),
            last_error      \(text),
            created_at      \(bigint) NOT NULL,
            updated_at      \(bigint) NOT NULL,
            UNIQUE (endpoint_id, event_id)
        );
        CREATE INDEX webhook_events_due ON webhook_events (endpoint_id, next_attempt_at)
            WHERE state IN ('pending', 'in_flight');
        CREATE INDEX webhook_events_by_endpoint ON webhook_events (endpoint_id, updated_at);
        CREATE INDEX webhook_events_final ON webhook_events (updated_at) WHERE state IN ('delivered', 'failed');
        """
    }

    /// Broadcast channels per app topic and environment (outbox rows that publish on one of them have
    /// `channel_id` set and `token` empty: each schema adds that column to its outbox).
    var channels: String {
        """
        CREATE TABLE channels (
            id             \(key) NOT NULL,
            topic          \(key) NOT NULL,
            \(environmentColumn)
            storage_policy \(int) NOT NULL,
            created_at     \(bigint) NOT NULL,
            PRIMARY KEY (id, environment)
        );
        CREATE INDEX channels_by_topic ON channels (topic, environment, created_at);
        """
    }

    /// ActivityKit push tokens: push-to-start tokens per attributes type and update tokens per Live
    /// Activity, which retire when their activity ends (`retired_at`).
    var activityTokens: String {
        """
        CREATE TABLE activity_tokens (
            \(registeredTokenColumns)
            kind            \(text) NOT NULL CHECK (kind IN ('push_to_start', 'live_activity')),
            attributes_type \(text),
            activity_id     \(key),
            registered_at   \(bigint) NOT NULL,
            retired_at      \(bigint),
            PRIMARY KEY (token, topic)
        );
        CREATE INDEX activity_tokens_by_user ON activity_tokens (user_id, registered_at);
        CREATE INDEX activity_tokens_by_activity ON activity_tokens (activity_id);
        """
    }

    /// The service's budget of priority-10 Live Activity updates: one row per update sent at priority 10,
    /// counted per activity over the last hour (rows past it are purged). Retired tokens are purged too.
    /// On PostgreSQL, which has no `rowid`, a `seq` names each row for the purge; instances take from the
    /// budget one at a time per activity (an advisory lock on the activity id).
    var activityBudget: String {
        """
        CREATE TABLE activity_budget (\(dialect == .sqlite ? "" : "\n    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,")
            activity_id \(key) NOT NULL,
            sent_at     \(bigint) NOT NULL
        );
        CREATE INDEX activity_budget_by_activity ON activity_budget (activity_id, sent_at);
        CREATE INDEX activity_budget_by_time ON activity_budget (sent_at);
        CREATE INDEX activity_tokens_retired ON activity_tokens (retired_at) WHERE retired_at IS NOT NULL;
        """
    }
}
