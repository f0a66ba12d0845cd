import Foundation

extension SQLDatabase {
    /// Deletes up to `limit` rows of `table` whose time `column` is before `date` (and, with `condition`,
    /// that match it too), oldest first; returns how many. A row is named by its `rowid` on SQLite, by `key`
    /// (its primary key's columns) on PostgreSQL (`SQLDialect.rowKey`). On SQLite the pages freed go back to
    /// the file system.
    func purge(
        _ table: String, key: String..., olderThan date: Date, by column: String, where condition: String? = nil, limit: Int
    ) async throws -> Int {
        guard limit > 0 else { return 0 }
        let match = (condition.map { "\($0) AND " } ?? "") + "\(column) < ?1"
        return try await onConnection { db in
            let (row, columns) = db.dialect.rowKey(postgres: key)
            let deleted = try db.run(
                """
                DELETE FROM \(table) WHERE \(row) IN (SELECT \(columns) FROM \(table)
                    WHERE \(match) ORDER BY \(column) LIMIT ?2)
                """, [.date(date), .integer(limit)])
            // SQLite gives the pages the rows held back to the file system (`SQLiteConnection.releaseFreePages`),
            // at best: a full disk must not cost the purge that frees it.
            if deleted > 0, db.dialect == .sqlite { _ = try? db.run("PRAGMA incremental_vacuum", []) }
            return deleted
        }
    }
}
