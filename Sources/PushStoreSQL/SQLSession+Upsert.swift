extension SQLSession {
    /// Runs `upsert` (an `INSERT … ON CONFLICT … DO UPDATE`) and returns the row it stored, mapped by `row`:
    /// PostgreSQL in the same statement (`RETURNING columns`), SQLite by `reread` right after it (on the
    /// same connection, where nothing runs in between). Nil when no row comes back.
    func upsert<T>(
        _ upsert: String, _ values: [SQLValue], returning columns: String, row: (Row) throws -> T,
        reread: () throws -> T?
    ) throws -> T? {
        guard dialect.returnsUpsertedRows else {
            try run(upsert, values)
            return try reread()
        }
        return try query(upsert + "\nRETURNING \(columns)", values, row: row).first
    }
}
