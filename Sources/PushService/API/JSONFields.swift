import APNSCore
public import JSON

/// Typed, validating access to the members of one JSON object from a request body.
///
/// Every getter throws a 400 `APIError` naming the field when the member has the wrong type;
/// `checkKnown` rejects members the operation does not define, so typos never pass silently.
public struct JSONFields: Sendable {
    /// The object's members.
    public let members: [String: JSONValue]
    /// The path of this object in the body, for messages (e.g. `alert.`).
    public let prefix: String

    /// Wraps `value`; throws 400 unless it is an object.
    public init(_ value: JSONValue, prefix: String = "") throws(APIError) {
        guard case .object(let members) = value else {
            throw prefix.isEmpty
                ? .badRequest("invalid_body", "the body must be a JSON object")
                : .invalidField(String(prefix.dropLast()), "must be an object")
        }
        self.members = members
        self.prefix = prefix
    }

    /// Parses a request body as a JSON object.
    public static func parse(body: [UInt8]) throws(APIError) -> JSONFields {
        guard !body.isEmpty else { throw .badRequest("invalid_body", "a JSON object body is required") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw .badRequest("malformed_json", "the body is not valid JSON: \(error)")
        }
        return try JSONFields(value)
    }

    /// Throws 400 if a member is not in `allowed`.
    public func checkKnown(_ allowed: Set<String>) throws(APIError) {
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw .invalidField(prefix + key, "unknown field")
        }
    }

    /// True if the member is present (a `null` counts: the typed getters refuse it unless allowed).
    public func has(_ key: String) -> Bool {
        members[key] != nil
    }

    /// The member's value; nil when absent, or when `null` and `allowNull`; a `null` otherwise is a 400.
    private func present(_ key: String, allowNull: Bool) throws(APIError) -> JSONValue? {
        guard let value = members[key] else { return nil }
        guard !value.isNull else {
            if allowNull { return nil }
            throw .invalidField(prefix + key, "must not be null")
        }
        return value
    }

    /// An optional string of at most `maxBytes` UTF-8 bytes (and `maxLength` Unicode code points, JSON
    /// Schema's `maxLength`, when given); `null` counts as absent only with `allowNull`.
    public func string(
        _ key: String, maxBytes: Int = 1024, maxLength: Int? = nil,
        allowNull: Bool = false
    ) throws(APIError) -> String? {
        guard let value = try present(key, allowNull: allowNull) else { return nil }
        guard case .string(let text) = value else { throw .invalidField(prefix + key, "must be a string") }
        guard text.utf8.count <= maxBytes else { throw .invalidField(prefix + key, "longer than \(maxBytes) bytes") }
        if let maxLength, text.unicodeScalars.count > maxLength {
            throw .invalidField(prefix + key, "longer than \(maxLength) characters")
        }
        return text
    }

    /// A required non-empty string.
    public func requiredString(_ key: String, maxBytes: Int = 1024) throws(APIError) -> String {
        guard let text = try string(key, maxBytes: maxBytes) else { throw .invalidField(prefix + key, "is required") }
        guard !text.isEmpty else { throw .invalidField(prefix + key, "must not be empty") }
        return text
    }

    /// The largest integer every JSON peer reads exactly: 2^53 - 1 ("Internet JSON", RFC 7493 section 2.2,
    /// https://www.rfc-editor.org/rfc/rfc7493#section-2.2), the `maximum` docs/openapi.yaml gives integers.
    public static let largestInteger = 9_007_199_254_740_991

    /// An optional integer: a JSON number without a fraction (`5` or `5.0`, as JSON Schema's `integer`),
    /// within ±`largestInteger`.
    public func int(_ key: String, allowNull: Bool = false) throws(APIError) -> Int? {
        guard let value = try present(key, allowNull: allowNull) else { return nil }
        let result: Int?
        switch value {
        case .int(let number): result = Int(exactly: number)
        case .double(let number) where number.rounded() == number && number.isFinite: result = Int(exactly: number)
        default: throw .invalidField(prefix + key, "must be an integer")
        }
        guard let result, abs(result) <= Self.largestInteger else {
            throw .invalidField(prefix + key, "out of range (at most \(Self.largestInteger) in magnitude)")
        }
        return result
    }

    /// An optional finite number.
    public func double(_ key: String) throws(APIError) -> Double? {
        guard let value = try present(key, allowNull: false) else { return nil }
        switch value {
        case .int(let number): return Double(number)
        case .double(let number) where number.isFinite: return number
        default: throw .invalidField(prefix + key, "must be a number")
        }
    }

    /// An optional finite number above zero.
    func positiveDouble(_ key: String) throws(APIError) -> Double? {
        guard let number = try double(key) else { return nil }
        guard number > 0 else { throw .invalidField(prefix + key, "must be a positive number") }
        return number
    }

    /// An optional finite number of seconds above zero, as a duration.
    func positiveSeconds(_ key: String) throws(APIError) -> Duration? {
        guard let number = try double(key) else { return nil }
        guard number > 0 else { throw .invalidField(prefix + key, "must be a positive number of seconds") }
        return .seconds(number)
    }

    /// A required finite number.
    public func requiredDouble(_ key: String) throws(APIError) -> Double {
        guard let number = try double(key) else { throw .invalidField(prefix + key, "is required") }
        return number
    }

    /// An optional boolean.
    public func bool(_ key: String) throws(APIError) -> Bool? {
        guard let value = try present(key, allowNull: false) else { return nil }
        guard case .bool(let flag) = value else { throw .invalidField(prefix + key, "must be true or false") }
        return flag
    }

    /// An optional nested object.
    public func object(_ key: String) throws(APIError) -> JSONFields? {
        guard let value = try present(key, allowNull: false) else { return nil }
        return try JSONFields(value, prefix: prefix + key + ".")
    }

    /// An optional array.
    public func array(_ key: String) throws(APIError) -> [JSONValue]? {
        guard let value = try present(key, allowNull: false) else { return nil }
        guard case .array(let elements) = value else { throw .invalidField(prefix + key, "must be an array") }
        return elements
    }
}
