import PostgresDriver
import PushStore

/// The PostgreSQL schema as an ordered list of migrations. Append new steps; never change what a shipped
/// one does (a database records only the number and name of each step it has run, in `schema_migrations`).
///
/// The tables SQLite holds alike are written once (`SharedSchema`): times are integer milliseconds since
/// 1970 and keys compare byte by byte (`COLLATE "C"`), as in SQLite; `outbox.expiration` is whole seconds.
enum PostgresSchema {
    static let shared = SharedSchema(dialect: .postgres)

    static let migrations: [SchemaMigration] =
        [initial, outbox]
        + shared.stepsInCommon(outboxChannelColumn: "ALTER TABLE outbox ADD COLUMN channel_id text;")
        + [outboxSplit, outboxDue, outboxSegments, outboxByPush, outboxPushes, outboxTargetsLZ4]

    /// Users, devices, drops, mate requests and Idempotency-Key records.
    private static let initial = SchemaMigration(
        name: "initial",
        sql: """
            \(shared.users)
            \(shared.devices)
            CREATE INDEX devices_by_user ON devices (user_id, registered_at);
            \(shared.drops)
            CREATE INDEX drops_pending ON drops (created_at, id) WHERE state = 'pending';
            \(shared.mateRequests)
            \(shared.idempotencyKeys)
            """)

    /// The outbox. `seq` numbers rows in enqueue order. A claim is a lease: `owner` (the claiming
    /// instance) and `lease_until` (ms) are set on in-flight rows, and another instance may claim a row
    /// again only after `lease_until`; `attempts` counted by each claim is the fence of `complete`.
    private static let outbox = SchemaMigration(
        name: "outbox",
        sql: """
            CREATE TABLE outbox (
                seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id              text COLLATE "C" NOT NULL UNIQUE,
                \(shared.outboxSendColumns(expiration: true))
                \(shared.outboxStateColumns(expiration: false))
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
            """)
}
