import PostgresDriver
import SQLiteDriver

/// What the shared statements need of a database driver: a connection that runs SQL with the driver's own
/// values and maps the driver's own rows (`SQLiteConnection`, `PostgresConnection`), written in `dialect`.
protocol SQLDriverConnection {
    associatedtype Row: StoreRow
    associatedtype Value: SQLDriverValue
    /// How the driver's database reads SQL.
    static var dialect: SQLDialect { get }
    /// Runs `sql` with `values` to completion; returns the number of rows it changed.
    func run(_ sql: String, _ values: [Value]) throws -> Int
    /// Runs `sql` with `values` and maps every row it returns with `row`.
    func query<T>(_ sql: String, _ values: [Value], row: (Row) throws -> T) throws -> [T]
    /// Whether the open transaction's commit waits for a synchronous standby (see
    /// `SQLSession.commitWaitsForStandby`).
    func commitWaitsForStandby(_ waits: Bool)
}

/// A driver's value, made from each case of `SQLValue` (`SQLValue.bound()`).
protocol SQLDriverValue {
    static func integer(_ value: Int64) -> Self
    static func text(_ value: String) -> Self
    static func bytes(_ value: [UInt8]) -> Self
    static var null: Self { get }
    static func textArray(_ values: [String]) -> Self
}

/// A shared statement's session on one driver connection, inside whatever transaction `SQLDatabase` opened
/// for it (`SQLSession`): the statement is rendered in the driver's dialect, its values in the driver's own.
struct DriverSession<Connection: SQLDriverConnection>: SQLSession {
    let connection: Connection

    var dialect: SQLDialect { Connection.dialect }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try connection.run(dialect.render(sql), values.map { $0.bound() })
    }

    func query<T>(_ sql: String, _ values: [SQLValue], row: (Connection.Row) throws -> T) throws -> [T] {
        try connection.query(dialect.render(sql), values.map { $0.bound() }, row: row)
    }

    func commitWaitsForStandby(_ waits: Bool) { connection.commitWaitsForStandby(waits) }
}

/// A session on the SQLite connection.
typealias SQLiteSession = DriverSession<SQLiteConnection>
/// A session on a pooled PostgreSQL connection.
typealias PostgresSession = DriverSession<PostgresConnection>

extension SQLiteConnection: SQLDriverConnection {
    static var dialect: SQLDialect { .sqlite }

    /// SQLite has no standby.
    func commitWaitsForStandby(_ waits: Bool) {}
}

extension SQLiteValue: SQLDriverValue {
    static func bytes(_ value: [UInt8]) -> SQLiteValue { .blob(value) }

    static func textArray(_ values: [String]) -> SQLiteValue {
        preconditionFailure("SQLite takes no array parameters: list the values (SQLSession.inList)")
    }
}

extension PostgresConnection: SQLDriverConnection {
    static var dialect: SQLDialect { .postgres }

    /// `SET LOCAL synchronous_commit = on` or `local` with the transaction's next statement (or its commit).
    func commitWaitsForStandby(_ waits: Bool) { executeWithNext("SET LOCAL synchronous_commit = \(waits ? "on" : "local")") }

    func query<T>(_ sql: String, _ values: [PostgresValue], row: (PostgresRow) throws -> T) throws -> [T] {
        try query(sql, values).map(row)
    }
}

extension PostgresValue: SQLDriverValue {
    static func textArray(_ values: [String]) -> PostgresValue { textArray(values.map(Optional.some)) }
}
