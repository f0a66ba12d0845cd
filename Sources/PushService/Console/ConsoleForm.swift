import Foundation
import PushHTTP

/// The fields of an `application/x-www-form-urlencoded` body (what the console's forms post).
struct ConsoleForm: Sendable {
    /// Fields in body order; a name may repeat.
    let fields: [(name: String, value: String)]

    /// Parses `body`: `name=value` pairs joined by `&`, `+` for space, `%XX` escapes.
    init(body: [UInt8]) {
        fields = FormURLEncoding.pairs(body)
    }

    /// The first value of `name`, or nil.
    func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first value of `name` with surrounding white space removed; nil when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = value(name) else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
