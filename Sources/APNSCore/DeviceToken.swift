import JSON

/// An APNs device token: an even number of hex digits (64 in practice, up to 200), kept lowercase.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The fewest hex digits a token may have.
    public static let minimumHexDigits = 64
    /// The most hex digits a token may have.
    public static let maximumHexDigits = 200

    /// The token as lowercase hex, as it appears in the request path.
    public let hex: String

    /// Parses a token the way people paste them: spaces, tabs, newlines and `<`/`>` are dropped,
    /// letters are lowercased (`<AB12 cd34 …>` becomes `ab12cd34…`). Dashes and other characters are errors.
    public init(_ text: String) throws(APNSValidationError) {
        if Self.isCanonical(text) {
            // Already lowercase hex of a valid length (the usual case): keep the string as it is.
            hex = text
            return
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                UInt8(ascii: "<"), UInt8(ascii: ">"):
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                digits.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                digits.append(byte + 0x20)
            default:
                throw APNSValidationError(field: "token", message: "contains a character that is not a hex digit")
            }
        }
        guard digits.count >= Self.minimumHexDigits else {
            throw APNSValidationError(field: "token", message: "has \(digits.count) hex digits, fewer than \(Self.minimumHexDigits)")
        }
        guard digits.count <= Self.maximumHexDigits else {
            throw APNSValidationError(field: "token", message: "has \(digits.count) hex digits, more than \(Self.maximumHexDigits)")
        }
        guard digits.count.isMultiple(of: 2) else {
            throw APNSValidationError(field: "token", message: "has an odd number of hex digits")
        }
        hex = String(decoding: digits, as: UTF8.self)
    }

    /// A token read back from storage that checked it when it was written: taken as it is, unchecked. A row
    /// changed behind the store's back goes to APNs as stored and comes back `BadDeviceToken`.
    package init(storedHex text: String) {
        hex = text
    }

    /// True when `text` needs no normalizing: only lowercase hex digits, an even count within the limits.
    private static func isCanonical(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count >= minimumHexDigits, count <= maximumHexDigits, count.isMultiple(of: 2) else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
        }
    }

    /// Creates a token from raw bytes (as an app receives them); no length check.
    public init(bytes: [UInt8]) {
        var digits: [UInt8] = []
        digits.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            digits.append(JSONValue.hexDigit(byte >> 4))
            digits.append(JSONValue.hexDigit(byte & 0x0F))
        }
        hex = String(decoding: digits, as: UTF8.self)
    }

    /// The token's raw bytes.
    public var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for byte in hex.utf8 {
            let nibble = byte <= UInt8(ascii: "9") ? byte - 0x30 : byte - 0x61 + 10
            if let pending = high {
                result.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return result
    }

    /// The lowercase hex text.
    public var description: String {
        hex
    }
}

extension DeviceToken: Codable {
    /// Decodes a token from a single string, normalized and validated like `init(_:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the token as its lowercase hex string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
