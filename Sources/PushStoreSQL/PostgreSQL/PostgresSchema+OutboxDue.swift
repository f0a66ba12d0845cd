import PostgresDriver
import PushStore

extension PostgresSchema {
    /// Claims that rewrite no index (the step after "outbox-items-and-state").
    ///
    /// A claim changes `state`, `attempts`, `owner`, `lease_until` and `updated_at`; while any of them is in an
    /// index (a key or a predicate), PostgreSQL must write the new row version to a new index entry in every
    /// index of the table (a non-HOT update): at each claim the primary key and the lease index. Here no index
    /// of `outbox_state` reads a column a claim changes, so a claim (and a lease renewal) is a HOT update: the
    /// new version goes on the same page (`fillfactor` leaves room for it) and no index is touched.
    ///
    /// - `due` is the row's due time while it is pending (queued or in flight, the `next_attempt_at` it was
    ///   claimed at), NULL once it is final: set at enqueue, kept by a claim, moved or cleared by a completion.
    ///   One index, `outbox_due`, serves both kinds of claim: queued rows due now, and in-flight rows whose
    ///   lease has run out (their owner died), which sit in it under the time they were due.
    /// - `ended_at` is when a row became final (its `updated_at` then), NULL while pending: the purge's index.
    static let outboxDue = SchemaMigration(
        name: "outbox-due",
        sql: """
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
            """)
}
