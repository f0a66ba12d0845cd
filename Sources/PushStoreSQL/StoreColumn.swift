import PushStore
import PushSync

/// The columns of one SELECT (or RETURNING) list, as an enum whose cases are in list order: a case's raw
/// value is its offset in the result row, and `selectList` is built from the same cases. Rows are read by
/// case (each backend's row type has accessors taking a column), so adding a column (a new case) cannot
/// shift what the other reads return. Both SQL backends use it.
///
/// A case names its column in camelCase, and its expression is, unless the enum says otherwise, that name
/// in snake_case (`initiatorID` selects `initiator_id`).
protocol StoreColumn: RawRepresentable<Int32>, CaseIterable where AllCases == [Self] {
    /// The column's expression in the list (e.g. `s.state`).
    var expression: String { get }
}

extension StoreColumn {
    /// The case's name in snake_case: the column of that name.
    var expression: String { Self.snakeCase(String(describing: self)) }

    /// `name` with an underscore before each capital that follows a lower-case letter or a digit, all in
    /// lower case: `registeredAt` is `registered_at`, `apnsUniqueID` is `apns_unique_id`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { result.append("_") }
            result += character.lowercased()
            previous = character
        }
        return result
    }

    /// Every case's expression, in offset order, comma-separated (built once per enum).
    static var selectList: String {
        selectLists.withLock { lists in
            if let list = lists[ObjectIdentifier(Self.self)] { return list }
            precondition(
                allCases.enumerated().allSatisfy { Int32($0.offset) == $0.element.rawValue },
                "\(Self.self): cases must be numbered 0, 1, 2, … in declaration order")
            let list = allCases.map(\.expression).joined(separator: ", ")
            lists[ObjectIdentifier(Self.self)] = list
            return list
        }
    }

    /// The offset just after the last column: where extra expressions appended to `selectList` start.
    static var end: Int32 { Int32(allCases.count) }
}

/// Each column enum's `selectList`, by enum.
private let selectLists = PThreadLock<[ObjectIdentifier: String]>([:])
