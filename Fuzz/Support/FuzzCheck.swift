import APNSCore

/// Invariant checks shared by the fuzz targets. A broken invariant stops the process with a message,
/// which libFuzzer records as a crash together with the input.
public enum FuzzCheck {
    /// Stops the process with `message` unless `condition` holds.
    public static func expect(_ condition: Bool, _ message: @autoclosure () -> String,
                              file: StaticString = #fileID, line: UInt = #line) {
        if !condition { fatalError("invariant broken: \(message())", file: file, line: line) }
    }

    /// `bytes` must be canonical compact JSON: it parses, and serializing the result gives the same bytes.
    /// Returns the parsed value.
    @discardableResult
    public static func expectCanonicalJSON(_ bytes: [UInt8], _ what: String) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            fatalError("invariant broken: \(what) is not valid JSON (\(error)): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        expect(value.serialized() == bytes, "\(what) is not in canonical form")
        return value
    }

    /// The nesting depth of `value`: 0 for a scalar, 1 for a flat array or object.
    public static func depth(of value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(depth(of:)).max() ?? 0)
        case .object(let members): 1 + (members.values.map(depth(of:)).max() ?? 0)
        default: 0
        }
    }

    /// `value` as it reads back after serialization: non-finite doubles become `null`.
    public static func serializedForm(of value: JSONValue) -> JSONValue {
        switch value {
        case .double(let number) where !number.isFinite: .null
        case .array(let elements): .array(elements.map(serializedForm(of:)))
        case .object(let members): .object(members.mapValues(serializedForm(of:)))
        default: value
        }
    }
}
