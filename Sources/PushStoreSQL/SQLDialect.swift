import Foundation

/// What the SQL text of the two databases differs in, so that a repository writes each statement once.
///
/// Shared statements number their parameters `?1`, `?2`, … (SQLite's form; PostgreSQL's `$1` is written
/// for it) and may give a parameter the type PostgreSQL cannot infer, `?2::text` or `?1::text[]`, which
/// SQLite (whose values carry their own types) leaves out. Everything else a statement says is the same in
/// both: `ON CONFLICT … DO UPDATE SET x = excluded.x`, `RETURNING`, `LIMIT`, times as milliseconds
/// since 1970 in a 64-bit integer, bodies as blob/bytea.
enum SQLDialect: Sendable {
    case sqlite, postgres

    /// `sql` as this database reads it.
    func render(_ sql: String) -> String {
        switch self {
        case .sqlite: Self.droppingCasts(sql)
        case .postgres: Self.dollarParameters(sql)
        }
    }

    /// `?n` becomes `$n`; casts stay.
    private static func dollarParameters(_ sql: String) -> String {
        let question = UInt8(ascii: "?")
        guard sql.utf8.contains(question) else { return sql }
        var bytes = Array(sql.utf8)
        for index in bytes.indices.dropLast() where bytes[index] == question && isDigit(bytes[index + 1]) {
            bytes[index] = UInt8(ascii: "$")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `?n::type` and `?n::type[]` become `?n`. A statement with no `:` (nearly all) is returned as it is,
    /// found so by `memchr` over the text's bytes (SQLite runs this for every statement; a byte-by-byte
    /// search through the string's UTF-8 view showed in B9's profile).
    private static func droppingCasts(_ sql: String) -> String {
        let colon = UInt8(ascii: ":")
        let hasColon =
            sql.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.baseAddress.map { memchr($0, Int32(colon), bytes.count) != nil } ?? false
            }
            ?? sql.utf8.contains(colon)
        guard hasColon else { return sql }
        let input = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == colon, index + 1 < input.count, input[index + 1] == colon {
                index += 2
                while index < input.count,
                    isIdentifier(input[index]) || input[index] == UInt8(ascii: "[")
                        || input[index] == UInt8(ascii: "]")
                {
                    index += 1
                }
                continue
            }
            output.append(input[index])
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
    }

    /// What ends a `SELECT` that reads rows a transaction goes on to change: ` FOR UPDATE` on PostgreSQL,
    /// where other instances write at the same time; nothing on SQLite, whose write transaction
    /// (`BEGIN IMMEDIATE`) already keeps every other writer out.
    /// SQL for now in ms since 1970, from the parameter `parameter` (`SQLDatabase.now(_:)` binds it): SQLite
    /// takes it as given (one process, one clock); PostgreSQL takes it unless it is NULL, else the database's
    /// time (`PostgresClock`).
    func now(_ parameter: String) -> String {
        switch self {
        case .sqlite: parameter
        case .postgres: PostgresClock.millis(parameter)
        }
    }

    var forUpdate: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE"
        }
    }

    /// What ends the `SELECT` of rows a claim takes: ` FOR UPDATE SKIP LOCKED` on PostgreSQL, so instances
    /// claiming at once never take the same row; nothing on SQLite (one writer).
    var forUpdateSkipLocked: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE SKIP LOCKED"
        }
    }

    /// Whether an `INSERT … ON CONFLICT … RETURNING` hands back the row it stored. PostgreSQL's does, in the
    /// same round trip; on SQLite the repositories read the row again after the upsert (on the same
    /// connection, nothing runs in between).
    var returnsUpsertedRows: Bool { self == .postgres }

    /// What names one row of a table in a `DELETE … WHERE key IN (SELECT columns … LIMIT n)`: SQLite's
    /// `rowid`; on PostgreSQL, which has none, the table's key (`postgresKey`, e.g. `seq`, or `token` and
    /// `topic`), as `key` (`(token, topic)`) and as the `columns` the subquery selects (`token, topic`).
    func rowKey(postgres postgresKey: [String]) -> (key: String, columns: String) {
        switch self {
        case .sqlite: ("rowid", "rowid")
        case .postgres:
            postgresKey.count == 1
                ? (postgresKey[0], postgresKey[0])
                : ("(\(postgresKey.joined(separator: ", ")))", postgresKey.joined(separator: ", "))
        }
    }

    /// A statement taking a lock that makes the transactions running it with the same text key (parameter
    /// `?1`) wait for each other, until their end: on PostgreSQL a transaction-scoped advisory lock in the
    /// two-key space `lockClass` (apart from the migrations' lock); none on SQLite, whose write transaction
    /// already keeps every other writer out.
    func keyLock(_ lockClass: Int32) -> String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(\(lockClass), hashtext(?1))"
        }
    }

    /// Whether rows a claim takes name the instance that took them (column `owner`): on PostgreSQL, shared
    /// by instances; not on SQLite, used by one process at a time.
    var namesClaimOwner: Bool { self == .postgres }

    /// ` INDEXED BY index` after a table name in SQLite, whose planner is told which index a statement
    /// must use; nothing on PostgreSQL (see `SQLDatabase.readingPendingRows`).
    func indexedBy(_ index: String) -> String {
        switch self {
        case .sqlite: " INDEXED BY \(index)"
        case .postgres: ""
        }
    }
}
