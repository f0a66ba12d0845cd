import PushStore

/// The columns of one SELECT (or RETURNING) list, as an enum whose cases are in list order: a case's raw
/// value is its offset in the result row, and `selectList` is built from the same cases. Rows are read by
/// case (each backend's row type has accessors taking a column), so adding a column (a new case) cannot
/// shift what the other reads return. Both SQL backends use it.
protocol StoreColumn: RawRepresentable<Int32>, CaseIterable where AllCases == [Self] {
    /// The column's expression in the list (e.g. `s.state`).
    var expression: String { get }
}

extension StoreColumn {
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
