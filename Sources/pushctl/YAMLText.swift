import APNSCore
import Foundation
import JSON

/// Writes a `JSONValue` as a YAML document in block style: keys sorted, strings quoted (JSON escapes) unless
/// a plain scalar can only be read back as that string, by YAML 1.2 and YAML 1.1 readers alike.
enum YAMLText {
    /// The whole document, ending in a newline.
    static func document(_ value: JSONValue) -> String {
        var lines: [String] = []
        write(value, indent: "", into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func write(_ value: JSONValue, indent: String, into lines: inout [String]) {
        switch value {
        case .object(let members) where !members.isEmpty:
            for key in members.keys.sorted() {
                entry(indent + scalar(.string(key)) + ":", members[key] ?? .null, indent: indent, into: &lines)
            }
        case .array(let items) where !items.isEmpty:
            for item in items {
                if case .object(let members) = item, !members.isEmpty {
                    // "- key: value" with the object's other keys aligned under the first.
                    var nested: [String] = []
                    write(item, indent: indent + "  ", into: &nested)
                    nested[0] = indent + "- " + nested[0].dropFirst(indent.count + 2)
                    lines += nested
                } else {
                    entry(indent + "-", item, indent: indent, into: &lines)
                }
            }
        default:
            lines.append(indent + scalar(value))
        }
    }

    /// `prefix value` for a scalar or an empty collection, else `prefix` and the collection indented below.
    private static func entry(_ prefix: String, _ value: JSONValue, indent: String, into lines: inout [String]) {
        switch value {
        case .object(let members) where !members.isEmpty:
            lines.append(prefix)
            write(value, indent: indent + "  ", into: &lines)
        case .array(let items) where !items.isEmpty:
            lines.append(prefix)
            write(value, indent: indent + "  ", into: &lines)
        default:
            lines.append(prefix + " " + scalar(value))
        }
    }

    private static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .object: "{}"
        case .array: "[]"
        case .string(let text): plainIsSafe(text) ? text : quoted(text)
        default: String(decoding: value.serialized(), as: UTF8.self)
        }
    }

    /// Words YAML 1.1 readers (PyYAML among them) take for booleans or null, compared in lower case.
    private static let reserved: Set<String> = ["null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"]

    /// Plain only when no YAML 1.1 or 1.2 reader could take it for anything but this string: it starts with a
    /// letter (so never a number, date, time or indicator), is no boolean or null word, and holds no `: ` or ` #`.
    private static func plainIsSafe(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first),
            !reserved.contains(text.lowercased())
        else { return false }
        if text.contains(": ") || text.contains(" #") || text.hasSuffix(":") || text.hasSuffix(" ") { return false }
        return text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
    }

    /// A double-quoted scalar: JSON's string escapes are valid YAML escapes.
    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
    }
}
