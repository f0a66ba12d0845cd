import APNSCore
import JSON

/// Printing service answers: JSON or YAML for scripts, key/value lines or tables for people.
enum ServiceOutput {
    /// Prints `response` in `format`: its JSON as is, as YAML, or readably (`listKey`'s list as a table).
    static func print(
        _ response: ServiceClient.Response, format: OutputFormat, listKey: String? = nil,
        emptyText: String = "(none)"
    ) {
        guard let value = response.json else {
            if !response.body.isEmpty { Console.out(String(decoding: response.body, as: UTF8.self)) }
            return
        }
        guard format == .table else {
            format.print(value) {}
            return
        }
        if let listKey, let list = value[listKey]?.arrayValue {
            table(list, emptyText: emptyText)
        } else if let list = value.arrayValue {
            table(list, emptyText: emptyText)
        } else if let object = value.objectValue {
            Console.table(["FIELD", "VALUE"], object.keys.sorted().map { [$0, text(object[$0] ?? .null)] })
        } else {
            Console.out(text(value))
        }
    }

    /// Prints `response` as JSON or YAML; for a table, runs `table` instead.
    static func print(_ response: ServiceClient.Response, format: OutputFormat, table: () -> Void) {
        if format == .table { table() } else { print(response, format: format) }
    }

    /// A table of objects; columns are the union of their keys, in first-seen order.
    static func table(_ list: [JSONValue], emptyText: String) {
        guard !list.isEmpty else {
            Console.out(emptyText)
            return
        }
        var columns: [String] = []
        for item in list {
            for key in (item.objectValue ?? [:]).keys.sorted() where !columns.contains(key) { columns.append(key) }
        }
        if columns.isEmpty {
            for item in list { Console.out(text(item)) }
            return
        }
        Console.table(columns.map { $0.uppercased() }, list.map { item in columns.map { item[$0].map(text) ?? "" } })
    }

    /// A cell: strings bare, everything else as compact JSON.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): string
        case .null: "-"
        default: String(decoding: value.serialized(), as: UTF8.self)
        }
    }
}
