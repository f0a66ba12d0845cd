import PostgresDriver
import PushStore

extension PostgresSchema {
    /// Target lists compressed with LZ4 (the step after "outbox-pushes").
    ///
    /// A push's target list (`outbox_pushes.targets`: every token of the push, 65 bytes each) is the one large
    /// value an enqueue writes, compressed as PostgreSQL stores it out of line. Its default method (pglz) was
    /// the largest single cost of PostgreSQL's own CPU in B11 once completions went by the range; LZ4 costs
    /// far less to compress and to read back. The step sets it on the column where the server was built with
    /// LZ4, and changes nothing where it was not (`feature_not_supported`): lists keep pglz there. Lists
    /// stored before the step keep the method they were written with; both are read alike.
    static let outboxTargetsLZ4 = SchemaMigration(
        name: "outbox-targets-lz4",
        sql: """
            DO $body$
            BEGIN
                ALTER TABLE outbox_pushes ALTER COLUMN targets SET COMPRESSION lz4;
            EXCEPTION WHEN feature_not_supported THEN
                NULL;
            END
            $body$;
            """)
}
