/// Checks `Authorization: Bearer <key>` against the configured keys in constant time.
///
/// Every configured key is compared over its full length whatever the input, so the time taken does
/// not reveal how much of a key matched. Keys are never logged or echoed.
public struct APIKeyAuthenticator: Sendable {
    private let keys: [[UInt8]]

    /// An authenticator accepting any of `keys` (empty keys are ignored).
    public init(keys: [String]) {
        self.keys = keys.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    /// True if `authorization` (the header value) carries a valid bearer key.
    public func isAuthorized(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 || ($0 == 0x20 && $1 == 0x20) }) else { return false }
        let presented = Array(bytes[scheme.count...])
        var matched = false
        for key in keys where Self.constantTimeEqual(presented, key) { matched = true }
        return matched
    }

    /// Compares two byte strings in time that depends only on `expected`'s length.
    static func constantTimeEqual(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: presented.count ^ expected.count)
        guard !expected.isEmpty else { return false }
        for index in 0..<expected.count {
            let other = presented.isEmpty ? 0 : presented[index % presented.count]
            difference |= other ^ expected[index]
        }
        return difference == 0
    }
}
