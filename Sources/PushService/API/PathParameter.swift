public import APNSCore
import PushStore

/// A path parameter as its rule (`PathParameter`) reads it: parsed once, by the router, before the handler
/// runs, so a handler takes a device token or a channel id as the type it is, never the text again.
public enum PathValue: Sendable, Hashable {
    /// An id whose rule is a character pattern (user, push, mate request, Live Activity): the text.
    case text(String)
    /// A device token.
    case deviceToken(DeviceToken)
    /// A broadcast channel id, in the standard base64 alphabet whichever alphabet the path used.
    case channelID(APNSChannelID)
}

/// What a path parameter must look like. The router checks it before the handler runs, so every route
/// answers a malformed id the same way: 400 `invalid_path`. `docs/openapi.yaml` states the same patterns.
public enum PathParameter: Sendable {
    /// A user id: `^[A-Za-z0-9_.-]{1,64}$`.
    case userID
    /// A device token: an even number (64-200) of hex digits.
    case deviceToken
    /// A push id: a lowercase UUID.
    case pushID
    /// A mate request id: the drop's lowercase UUID, then `.initiator` or `.peer`.
    case mateRequestID
    /// A broadcast channel id: APNs' base64 (percent-encode `/`, `+` and `=`), or the same in the URL-safe
    /// alphabet (`-` for `+`, `_` for `/`), of any length (Apple: "don't make assumptions on the channel ID
    /// size", "Sending channel management requests to APNs").
    case channelID
    /// A Live Activity id: `^[A-Za-z0-9_.-]{1,128}$`.
    case activityID

    /// `value` read by this rule, or nil when it does not fit (``problem(_:)`` says why).
    func parse(_ value: String) -> PathValue? {
        switch self {
        case .deviceToken:
            guard APIFieldRules.isHexToken(value), let token = try? DeviceToken(value) else { return nil }
            return .deviceToken(token)
        case .channelID:
            return APIFieldRules.channelID(value).map(PathValue.channelID)
        case .userID, .pushID, .mateRequestID, .activityID:
            return problem(value) == nil ? .text(value) : nil
        }
    }

    /// Nil when `value` fits, otherwise why not.
    func problem(_ value: String) -> String? {
        switch self {
        case .userID:
            return APIFieldRules.isUserID(value) ? nil : "must be 1-64 characters of A-Z a-z 0-9 _ . -"
        case .deviceToken:
            return APIFieldRules.isHexToken(value) ? nil : "must be an even number (64-200) of hex digits"
        case .pushID:
            return APIFieldRules.isUUID(Substring(value)) ? nil : "must be a lowercase UUID"
        case .mateRequestID:
            for suffix in [".initiator", ".peer"] where value.hasSuffix(suffix) {
                if APIFieldRules.isUUID(value.dropLast(suffix.count)) { return nil }
            }
            return "must be a drop id (lowercase UUID) followed by .initiator or .peer"
        case .activityID:
            let valid =
                (1...128).contains(value.utf8.count)
                && value.utf8.allSatisfy {
                    $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || "_.-".utf8.contains($0))
                }
            return valid ? nil : "must be 1-128 characters of A-Z a-z 0-9 _ . -"
        case .channelID:
            return APIFieldRules.channelID(value) == nil ? "must be a base64 channel id" : nil
        }
    }
}

/// The character-level rules the API and its OpenAPI document share.
enum APIFieldRules {
    /// `^[A-Za-z0-9_.-]{1,64}$`, the store's own rule.
    static func isUserID(_ value: String) -> Bool { StoreValidation.isUserID(value) }

    /// `^([0-9A-Fa-f]{2}){32,100}$`.
    static func isHexToken(_ value: String) -> Bool {
        let count = value.utf8.count
        return (DeviceToken.minimumHexDigits...DeviceToken.maximumHexDigits).contains(count) && count.isMultiple(of: 2)
            && value.utf8.allSatisfy(isHexDigit)
    }

    /// `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`.
    static func isUUID(_ value: Substring) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !(isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)) {
                return false
            }
        }
        return true
    }

    /// The channel id in `value` (standard base64, or URL-safe base64 turned into standard), or nil.
    static func channelID(_ value: String) -> APNSChannelID? {
        let standard = String(value.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        guard APNSChannelID.isBase64(standard) else { return nil }
        return APNSChannelID(rawValue: standard)
    }

    /// A bundle id, optionally with an APNs suffix: `^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$`, at most 255 bytes.
    static func isTopic(_ value: String) -> Bool {
        guard (1...255).contains(value.utf8.count) else { return false }
        return value.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        }
    }

    /// `^[ -~]{1,64}$`: printable ASCII, as an HTTP/2 header value of at most 64 bytes must be.
    static func isCollapseID(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count) && value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
