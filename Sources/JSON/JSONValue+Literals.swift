extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral
{
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }

    /// Creates `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Creates an integer.
    public init(integerLiteral value: Int64) { self = .int(value) }

    /// Creates a floating-point number.
    public init(floatLiteral value: Double) { self = .double(value) }

    /// Creates a string.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Creates an array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(elements.count)
        for (key, value) in elements { members[key] = value }
        self = .object(members)
    }
}
