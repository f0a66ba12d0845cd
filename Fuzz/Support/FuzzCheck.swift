public import JSON

/// Invariant checks shared by the fuzz targets. A broken invariant stops the process with a message,
/// which libFuzzer records as a crash together with the input; inside ``reporting(to:_:)`` (the test
/// suite's replay) it is handed to a reporter instead, and the check goes on.
public enum FuzzCheck {
    /// Receives a broken invariant's message and where it was checked.
    public typealias Reporter = @Sendable (_ message: String, _ file: StaticString, _ line: UInt) -> Void

    @TaskLocal private static var reporter: Reporter?

    /// Runs `body` with broken invariants going to `reporter` instead of stopping the process.
    public static func reporting<R>(to reporter: @escaping Reporter, _ body: () throws -> R) rethrows -> R {
        try $reporter.withValue(reporter, operation: body)
    }

    /// Reports `message` as a broken invariant unless `condition` holds: stops the process, or hands it to
    /// the reporter of ``reporting(to:_:)``.
    public static func expect(
        _ condition: Bool, _ message: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        guard !condition else { return }
        if let reporter { return reporter(message(), file, line) }
        fatalError("invariant broken: \(message())", file: file, line: line)
    }

    /// `bytes` must be canonical compact JSON: it parses, and serializing the result gives the same bytes.
    /// Returns the parsed value.
    @discardableResult
    public static func expectCanonicalJSON(_ bytes: [UInt8], _ what: String) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            expect(false, "\(what) is not valid JSON (\(error)): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
            return .null
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
