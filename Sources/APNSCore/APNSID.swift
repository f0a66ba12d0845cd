import JSON

/// An `apns-id`: the canonical 8-4-4-4-12 hex UUID that identifies one notification (Apple's
/// "Sending notification requests to APNs": a canonical UUID, 32 hex digits in five groups separated by
/// hyphens). A value always has that form: ``init(rawValue:)`` checks it; the static helpers make and
/// check the text.
public struct APNSID: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    /// The 36 characters as given (either case, as APNs accepts).
    public let rawValue: String
    /// Whether `rawValue` has an uppercase hex digit, found by the check that made the value: the
    /// lowercase text a request carries (``lowercased``) is then ready without looking at it again.
    private let hasUppercase: Bool

    /// The id `rawValue`, or nil unless it is 8-4-4-4-12 hex digits with dashes (``isValid(_:)``).
    public init?(rawValue: String) {
        let form = Self.form(of: rawValue)
        guard form != .invalid else { return nil }
        self.rawValue = rawValue
        hasUppercase = form == .mixedCase
    }

    /// The id `rawValue`, which the caller has already checked and knows to be lowercase (or made with
    /// ``format(high:low:)``, as the outbox's derived ids are).
    package init(checked rawValue: String) {
        self.rawValue = rawValue
        hasUppercase = false
    }

    /// The id in lowercase, as a request carries it: `rawValue` itself unless it has an uppercase digit
    /// (no check and no copy for the ids the package makes).
    public var lowercased: String {
        hasUppercase ? rawValue.lowercased() : rawValue
    }

    /// Equal when the text is.
    public static func == (lhs: APNSID, rhs: APNSID) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The text.
    public var description: String {
        rawValue
    }

    /// A new random (version 4) id in lowercase, as APNs itself generates.
    public static func random() -> APNSID {
        APNSID(checked: generate())
    }

    /// A new version 4 id in lowercase, drawing randomness from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> APNSID {
        APNSID(checked: generate(using: &generator))
    }

    /// A new random (version 4) UUID in lowercase, as APNs itself generates.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// A new version 4 UUID in lowercase, drawing randomness from `generator`.
    public static func generate(using generator: inout some RandomNumberGenerator) -> String {
        let (high, low) = version4Bits(using: &generator)
        return format(high: high, low: low)
    }

    /// Writes a new version 4 UUID, in lowercase, into the first 36 bytes of `target`, drawing randomness
    /// from `generator`: the bytes of ``generate(using:)`` with no string made.
    public static func generate(using generator: inout some RandomNumberGenerator, into target: UnsafeMutableRawBufferPointer) {
        let (high, low) = version4Bits(using: &generator)
        write(high: high, low: low, into: target)
    }

    /// The 128 bits of a new version 4 UUID: two random words from `generator` with the version and the
    /// RFC 4122 variant set.
    private static func version4Bits(using generator: inout some RandomNumberGenerator) -> (high: UInt64, low: UInt64) {
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return (
            high & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000,  // version 4
            low & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000  // RFC 4122 variant
        )
    }

    /// `id` lowercased when it is a valid id, else as given (so `validate()` can report it): how
    /// ``APNSNotification/apnsID`` and ``APNSBroadcast/requestID`` keep the id they are given.
    static func normalized(_ id: String?) -> String? {
        normalizing(id).id
    }

    /// `id` as ``normalized(_:)`` keeps it, and whether it is nil or a valid id, from one look at its
    /// bytes; a valid id already in lowercase is kept as it is (no copy).
    static func normalizing(_ id: String?) -> (id: String?, isValid: Bool) {
        guard let id else { return (nil, true) }
        switch form(of: id) {
        case .invalid: return (id, false)
        case .lowercase: return (id, true)
        case .mixedCase: return (id.lowercased(), true)
        }
    }

    /// Writes `high`, `low` as 8-4-4-4-12 lowercase hex into the first 36 bytes of `target`.
    public static func write(high: UInt64, low: UInt64, into target: UnsafeMutableRawBufferPointer) {
        precondition(target.count >= 36, "an apns-id takes 36 bytes")
        let text = target.baseAddress!
        // Hex digits of `word` (most significant first) for nibbles `first..<first + count`, at `offset`.
        func digits(_ word: UInt64, _ first: Int, _ count: Int, at offset: Int) {
            for index in 0..<count {
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (first + index))) & 0x0F
                text.storeBytes(of: nibble < 10 ? nibble &+ 48 : nibble &+ 87, toByteOffset: offset + index, as: UInt8.self)
            }
        }
        let dash = UInt8(ascii: "-")
        digits(high, 0, 8, at: 0)
        text.storeBytes(of: dash, toByteOffset: 8, as: UInt8.self)
        digits(high, 8, 4, at: 9)
        text.storeBytes(of: dash, toByteOffset: 13, as: UInt8.self)
        digits(high, 12, 4, at: 14)
        text.storeBytes(of: dash, toByteOffset: 18, as: UInt8.self)
        digits(low, 0, 4, at: 19)
        text.storeBytes(of: dash, toByteOffset: 23, as: UInt8.self)
        digits(low, 4, 12, at: 24)
    }

    /// The 128 bits `high`, `low` as 8-4-4-4-12 lowercase hex (version and variant bits as given): the
    /// package's one UUID formatter, for apns-ids and the outbox's row ids alike.
    public static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            write(high: high, low: low, into: UnsafeMutableRawBufferPointer(text))
            return 36
        }
    }

    /// Whether `text` is 8-4-4-4-12 hex digits with dashes; either case, as APNs accepts.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        form(of: text) != .invalid
    }

    /// Whether `bytes` (UTF-8) are 8-4-4-4-12 hex digits with dashes, as ``isValid(_:)`` checks text.
    public static func isValid(bytes: UnsafeRawBufferPointer) -> Bool {
        form(utf8: bytes.assumingMemoryBound(to: UInt8.self)) != .invalid
    }

    /// What a text is as an id.
    private enum Form {
        case invalid
        case lowercase
        case mixedCase
    }

    private static func form(of text: some StringProtocol) -> Form {
        if let result = text.utf8.withContiguousStorageIfAvailable(form(utf8:)) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(form(utf8:))
    }

    private static func form(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Form {
        let dash = UInt8(ascii: "-")
        guard bytes.count == 36, bytes[8] == dash, bytes[13] == dash, bytes[18] == dash, bytes[23] == dash else {
            return .invalid
        }
        var uppercase = false
        for position in 0..<36 where position != 8 && position != 13 && position != 18 && position != 23 {
            let byte = bytes[position]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") || byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") {
                continue
            }
            guard byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") else { return .invalid }
            uppercase = true
        }
        return uppercase ? .mixedCase : .lowercase
    }
}
