/// The id of a broadcast channel: the base64 string APNs returns in `apns-channel-id` when a channel is
/// created. APNs makes it up; Apple says not to assume anything about its size, so only its encoding
/// is checked here.
public struct APNSChannelID: Hashable, Sendable, RawRepresentable, CustomStringConvertible, Comparable {
    /// The base64 text as APNs wrote it.
    public let rawValue: String

    /// A channel id from its text, as given (see ``isWellFormed`` for the check APNs applies).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A channel id from its text, as given.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Whether the text is non-empty standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, a length that is a
    /// multiple of 4, at most two `=` at the end). APNs answers `BadChannelId` otherwise.
    public var isWellFormed: Bool {
        Self.isBase64(rawValue)
    }

    /// The text.
    public var description: String {
        rawValue
    }

    /// Orders by the text, for stable listings.
    public static func < (lhs: APNSChannelID, rhs: APNSChannelID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Whether `text` is non-empty, padded, standard base64.
    public static func isBase64(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count.isMultiple(of: 4) else { return false }
        var padding = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, isAlphabet(byte) else { return false }
        }
        return padding <= 2
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
