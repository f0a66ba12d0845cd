import Foundation

/// The columns of one SELECT list, as an enum whose cases are in list order: a case's raw value is its
/// offset in the result row, and `selectList` is built from the same cases. Rows are read by case, so
/// adding a column (a new case) cannot shift what the other reads return.
protocol SQLiteColumn: RawRepresentable<Int32>, CaseIterable where AllCases == [Self] {
    /// The column's expression in the SELECT list (e.g. `s.state`).
    var expression: String { get }
}

extension SQLiteColumn {
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

extension SQLiteStatement {
    func int64(_ column: some SQLiteColumn) -> Int64 { int64(at: column.rawValue) }
    func optionalInt64(_ column: some SQLiteColumn) -> Int64? { optionalInt64(at: column.rawValue) }
    func int(_ column: some SQLiteColumn) -> Int { int(at: column.rawValue) }
    func optionalInt(_ column: some SQLiteColumn) -> Int? { optionalInt(at: column.rawValue) }
    func string(_ column: some SQLiteColumn) -> String { string(at: column.rawValue) }
    func optionalString(_ column: some SQLiteColumn) -> String? { optionalString(at: column.rawValue) }
    func string(_ column: some SQLiteColumn, reusing previous: String) -> String {
        string(at: column.rawValue, reusing: previous)
    }
    func blob(_ column: some SQLiteColumn) -> [UInt8] { blob(at: column.rawValue) }
    func blob(_ column: some SQLiteColumn, reusing previous: [UInt8]) -> [UInt8] {
        blob(at: column.rawValue, reusing: previous)
    }
    /// The time stored in `column` (milliseconds since 1970).
    func date(_ column: some SQLiteColumn) -> Date { Date(storeMillis: int64(at: column.rawValue)) }
    /// The time stored in `column`, or nil for NULL.
    func optionalDate(_ column: some SQLiteColumn) -> Date? {
        optionalInt64(at: column.rawValue).map(Date.init(storeMillis:))
    }
}
