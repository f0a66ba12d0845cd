import APNSCore
import JSON

/// A control request the control API refuses: the HTTP status and `{"error":{"code","message"}}`.
struct MockAPNSControlError: Error {
    let status: Int
    let code: String
    let message: String

    /// 400 bad_request.
    static func bad(_ message: String) -> MockAPNSControlError {
        MockAPNSControlError(status: 400, code: "bad_request", message: message)
    }

    /// 404 not_found.
    static func notFound(_ message: String) -> MockAPNSControlError {
        MockAPNSControlError(status: 404, code: "not_found", message: message)
    }

    /// The JSON body.
    var json: JSONValue {
        ["error": ["code": .string(code), "message": .string(message)]]
    }
}

/// A JSON object from a control request, read field by field; fields it was not asked for are refused.
struct MockAPNSControlObject {
    private let members: [String: JSONValue]
    private let context: String

    /// Parses `body` as one JSON object; an empty body is `{}` when `emptyIsObject`.
    init(body: [UInt8], context: String, emptyIsObject: Bool = false) throws(MockAPNSControlError) {
        if body.isEmpty, emptyIsObject {
            self.init(members: [:], context: context)
            return
        }
        guard let value = try? JSONValue.parse(body) else { throw .bad("\(context): the body is not valid JSON") }
        try self.init(value, context: context)
    }

    /// Reads `value`, which must be an object.
    init(_ value: JSONValue, context: String) throws(MockAPNSControlError) {
        guard let members = value.objectValue else { throw .bad("\(context) must be a JSON object") }
        self.init(members: members, context: context)
    }

    private init(members: [String: JSONValue], context: String) {
        self.members = members
        self.context = context
    }

    /// Refuses any field outside `known`.
    func onlyFields(_ known: Set<String>) throws(MockAPNSControlError) {
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .bad("\(context): unknown field '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// Whether `name` is present (null included).
    func has(_ name: String) -> Bool { members[name] != nil }

    /// Whether `name` is present and null.
    func isNull(_ name: String) -> Bool { members[name]?.isNull == true }

    /// The raw value of `name`.
    func value(_ name: String) -> JSONValue? { members[name] }

    /// A string field, nil when absent or null.
    func string(_ name: String) throws(MockAPNSControlError) -> String? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .bad("\(context).\(name) must be a string") }
        return text
    }

    /// An integer field in `range`, nil when absent or null.
    func int(_ name: String, in range: ClosedRange<Int>) throws(MockAPNSControlError) -> Int? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            throw .bad("\(context).\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A number field in `range`, nil when absent or null.
    func double(_ name: String, in range: ClosedRange<Double>) throws(MockAPNSControlError) -> Double? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw .bad("\(context).\(name) must be a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A true/false field, nil when absent or null.
    func bool(_ name: String) throws(MockAPNSControlError) -> Bool? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .bad("\(context).\(name) must be true or false") }
        return flag
    }

    /// An object field, nil when absent or null.
    func object(_ name: String) throws(MockAPNSControlError) -> MockAPNSControlObject? {
        guard let value = members[name], !value.isNull else { return nil }
        return try MockAPNSControlObject(value, context: "\(context).\(name)")
    }

    /// A documented APNs reason field, nil when absent or null.
    func reason(_ name: String, allowUnknown: Bool = false) throws(MockAPNSControlError) -> APNSRejectionReason? {
        guard let text = try string(name) else { return nil }
        let reason = APNSRejectionReason(rawValue: text)
        if case .unknown = reason, !allowUnknown || text.isEmpty {
            throw .bad("\(context).\(name): '\(text)' is not a reason APNs documents")
        }
        return reason
    }
}
