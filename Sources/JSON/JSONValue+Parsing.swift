extension JSONValue {
    /// The deepest nesting of arrays and objects `parse` accepts.
    public static let maximumDepth = 64

    /// Parses one RFC 8259 JSON text from UTF-8 bytes.
    ///
    /// Strict: rejects trailing data, invalid UTF-8, lone surrogate escapes, unescaped control
    /// characters, leading zeros, non-finite numbers, duplicate object keys, a byte-order mark
    /// and nesting deeper than `maximumDepth`. Integers without fraction or exponent that fit in
    /// 64 bits become `.int`; every other number becomes `.double`.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result =
            bytes.withContiguousStorageIfAvailable { JSONValue.parseResult($0) }
            ?? Array(bytes).withUnsafeBufferPointer { JSONValue.parseResult($0) }
        return try result.get()
    }

    /// Runs the parser over contiguous bytes and captures its typed error.
    private static func parseResult(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(buffer)
        do throws(JSONParseError) {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}
