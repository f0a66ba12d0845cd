/// Input rules both twins enforce before writing anything.
public enum StoreValidation {
    package static func userID(_ id: String) throws(PushStoreError) {
        guard isUserID(id) else { throw .invalidUserID(id) }
    }

    /// Whether `url` starts with `http://` or `https://`, compared byte by byte: `String.hasPrefix` compares
    /// whole characters, so a combining mark or emoji modifier right after the slashes (`https://🏻`) would
    /// join the last `/` into one character and fail the check.
    public static func hasHTTPScheme(_ url: String) -> Bool {
        url.utf8.starts(with: "http://".utf8) || url.utf8.starts(with: "https://".utf8)
    }

    /// True for a valid user id: `^[A-Za-z0-9_.-]{1,64}$` (the REST API checks ids with this too).
    public static func isUserID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy(isUserIDByte)
    }

    private static func isUserIDByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    package static func environment(_ environment: String) throws(PushStoreError) {
        // Two plain comparisons: cheaper per row than hashing the string for a set lookup.
        guard environment == "production" || environment == "development" else {
            throw .invalidField(field: "environment", reason: "must be production or development, got \"\(environment.prefix(40))\"")
        }
    }

    /// A required string field: non-empty, at most `max` UTF-8 bytes.
    package static func required(_ value: String, field: String, max: Int = 255) throws(PushStoreError) {
        guard !value.isEmpty else { throw .invalidField(field: field, reason: "must not be empty") }
        try optional(value, field: field, max: max)
    }

    /// An optional string field: at most `max` UTF-8 bytes.
    package static func optional(_ value: String?, field: String, max: Int) throws(PushStoreError) {
        if let value, value.utf8.count > max {
            throw .invalidField(field: field, reason: "longer than \(max) bytes")
        }
    }
}
