public import JSON

/// Turns fuzzer bytes into typed values, front to back. Once the bytes run out every taker returns
/// zero, `false`, an empty string or `nil`, so any input, even an empty one, describes one value.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    /// A reader over `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been taken.
    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// The low bit of the next byte.
    public mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// A value in `0..<count` taken from the next byte (`count` at most 256).
    public mutating func choice(_ count: Int) -> Int {
        Int(byte()) % max(1, count)
    }

    /// Eight bytes, little-endian.
    public mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return value
    }

    /// A signed 64-bit integer; one byte picks a boundary value half of the time.
    public mutating func int64() -> Int64 {
        let edges: [Int64] = [0, 1, -1, Int64.max, Int64.min, 4096, 5120, Int64(Int32.max)]
        let pick = byte()
        if pick & 1 == 0 { return edges[Int(pick >> 1) % edges.count] }
        return Int64(bitPattern: uint64())
    }

    /// A double from raw bits (NaN, infinities and subnormals included) or a small common value.
    public mutating func double() -> Double {
        let common: [Double] = [0, -0.0, 0.5, 1, 1e-7, 1e20, .nan, .infinity, -.infinity, .leastNonzeroMagnitude]
        let pick = byte()
        if pick & 1 == 0 { return common[Int(pick >> 1) % common.count] }
        return Double(bitPattern: uint64())
    }

    /// A length-prefixed string of up to `maxBytes` bytes; invalid UTF-8 is repaired, as `String` requires.
    /// A few lengths are stretched so large payloads are reachable from short inputs.
    public mutating func string(maxBytes: Int = 600) -> String {
        let prefix = byte()
        var count = Int(prefix & 0x7F)
        if prefix & 0x80 != 0 {
            // Long text: one byte repeated, or the following bytes repeated.
            let length = min(maxBytes, Int(byte()) * 24)
            let filler = byte()
            return String(repeating: Character(Unicode.Scalar(filler)), count: length)
        }
        count = min(count, maxBytes, bytes.count - min(index, bytes.count))
        let slice = bytes[index..<(index + count)]
        index += count
        return String(decoding: slice, as: UTF8.self)
    }

    /// An optional string: `nil` when the next byte is even.
    public mutating func optionalString(maxBytes: Int = 600) -> String? {
        bool() ? string(maxBytes: maxBytes) : nil
    }

    /// A JSON value nested at most `depth` containers deep (objects and arrays of up to 8 members).
    public mutating func jsonValue(depth: Int) -> JSONValue {
        let kind = choice(depth > 0 ? 7 : 5)
        switch kind {
        case 0: return .null
        case 1: return .bool(bool())
        case 2: return .int(int64())
        case 3: return .double(double())
        case 4: return .string(string())
        case 5:
            return .array((0..<choice(9)).map { _ in jsonValue(depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<choice(9) { members[string(maxBytes: 40)] = jsonValue(depth: depth - 1) }
            return .object(members)
        }
    }
}
