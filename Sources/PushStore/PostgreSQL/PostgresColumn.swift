import Foundation

/// The columns of one SELECT (or RETURNING) list, as an enum whose cases are in list order: a case's raw
/// value is its offset in the result row, and `selectList` is built from the same cases, as with
/// `SQLiteColumn`. Rows are read by case, so adding a column cannot shift what the other reads return.
protocol PostgresColumn: RawRepresentable<Int32>, CaseIterable where AllCases == [Self] {
    /// The column's expression in the list (e.g. `o.state`).
    var expression: String { get }
}

extension PostgresColumn {
    /// Every case's expression, in offset order, comma-separated.
    static var selectList: String {
        precondition(
            allCases.enumerated().allSatisfy { Int32($0.offset) == $0.element.rawValue },
            "\(Self.self): cases must be numbered 0, 1, 2, … in declaration order")
        return allCases.map(\.expression).joined(separator: ", ")
    }

    /// The offset just after the last column: where extra expressions appended to `selectList` start.
    static var end: Int32 { Int32(allCases.count) }
}

extension PostgresRow {
    func int64(_ column: some PostgresColumn) -> Int64 { int64(at: column.rawValue) }
    func optionalInt64(_ column: some PostgresColumn) -> Int64? { optionalInt64(at: column.rawValue) }
    func int(_ column: some PostgresColumn) -> Int { Int(int64(at: column.rawValue)) }
    func optionalInt(_ column: some PostgresColumn) -> Int? { optionalInt64(at: column.rawValue).map(Int.init) }
    func string(_ column: some PostgresColumn) -> String { string(at: column.rawValue) }
    func optionalString(_ column: some PostgresColumn) -> String? { optionalString(at: column.rawValue) }
    func bytes(_ column: some PostgresColumn) -> [UInt8] { bytes(at: column.rawValue) }
    /// The time stored in `column` (milliseconds since 1970).
    func date(_ column: some PostgresColumn) -> Date { Date(storeMillis: int64(at: column.rawValue)) }
    /// The time stored in `column`, or nil for NULL.
    func optionalDate(_ column: some PostgresColumn) -> Date? {
        optionalInt64(at: column.rawValue).map(Date.init(storeMillis:))
    }
}
