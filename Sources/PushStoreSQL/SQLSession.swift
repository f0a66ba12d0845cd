/// One connection of either database, inside whatever transaction `SQLDatabase` opened for it: runs a
/// shared statement (`SQLDialect` says how it is written) with its values and maps the rows it returns.
protocol SQLSession {
    associatedtype Row: StoreRow
    /// The database's dialect.
    var dialect: SQLDialect { get }
    /// Runs `sql` with `values` to completion; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int
    /// Runs `sql` with `values` and maps every row it returns with `row`.
    func query<T>(_ sql: String, _ values: [SQLValue], row: (Row) throws -> T) throws -> [T]
    /// With `false`, lets the open transaction commit once it is durable on this server, without waiting for
    /// a synchronous standby (PostgreSQL `synchronous_commit = local`; nothing on SQLite); `true` waits again
    /// (`on`). For writes whose loss in a failover costs nothing because anything written after them that
    /// counts waits for the standby, and the standby confirms the WAL in order: an Idempotency-Key's claim.
    func commitWaitsForStandby(_ waits: Bool)
}

extension SQLSession {
    /// The row of `table` whose key `id` is `id`, its `columns` mapped by `row`; nil when there is none.
    func row<T>(of table: String, id: String, columns: String, _ row: (Row) throws -> T) throws -> T? {
        try query("SELECT \(columns) FROM \(table) WHERE id = ?1", [.text(id)], row: row).first
    }

    /// Runs `sql` once for `list`, a set of values matched against one column: PostgreSQL in one statement
    /// whose parameter `first` is the whole list (`sql` is handed `= ANY (?first::text[])`), SQLite in
    /// statements of up to `chunk` values each (handed `IN (?first, ?first+1, …)`). `values` are the
    /// parameters before `first`. An empty list runs nothing.
    func query<T>(
        _ sql: (_ match: String) -> String, _ values: [SQLValue], inList list: [String], chunk: Int = 500,
        row: (Row) throws -> T
    ) throws -> [T] {
        guard !list.isEmpty else { return [] }
        let first = values.count + 1
        switch dialect {
        case .postgres:
            return try query(sql("= ANY (?\(first)::text[])"), values + [.textArray(list)], row: row)
        case .sqlite:
            var rows: [T] = []
            var start = list.startIndex
            while start < list.endIndex {
                let part = list[start..<min(start + chunk, list.endIndex)]
                let placeholders = (0..<part.count).map { "?\($0 + first)" }.joined(separator: ", ")
                rows += try query(sql("IN (\(placeholders))"), values + part.map { .text($0) }, row: row)
                start = part.endIndex
            }
            return rows
        }
    }
}
