import PushTLS

/// Checks `Authorization: Bearer <key>` against the configured keys.
///
/// The presented key is hashed with SHA-256 and the 32-byte digest is compared with every configured
/// key's digest in full, so the time taken depends on the presented value's length only: not on which
/// key (if any) matched, nor on how many of its bytes did. Only the exact configured bytes are accepted:
/// the scheme is `Bearer` (any case), followed by exactly one space and the key, nothing before or after.
/// Keys are never logged or echoed.
public struct APIKeyAuthenticator: Sendable {
    /// The accepted keys.
    let keys: [APIKey]

    /// An authenticator accepting exactly `keys`.
    public init(keys: [APIKey]) {
        self.keys = keys
    }

    /// The key that `authorization` (the header value) carries, or nil when it carries none of them.
    public func authenticate(_ authorization: String?) -> APIKey? {
        guard let authorization, let presented = Self.bearerCredential(Array(authorization.utf8)) else { return nil }
        let digest = SHA256Digest.hash(presented)
        var found: APIKey?
        for key in keys where Self.constantTimeEqual(digest, key.digest) { found = key }
        return found
    }

    /// The bytes after `Bearer ` (scheme case-insensitive, one space), or nil when the header has another shape.
    static func bearerCredential(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count + 1 else { return nil }
        for index in 0..<scheme.count {
            // ASCII letters only: folding with 0x20 is exact for A-Z/a-z and the scheme has nothing else.
            let byte = bytes[index]
            guard byte | 0x20 == scheme[index], (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) else {
                return nil
            }
        }
        guard bytes[scheme.count] == UInt8(ascii: " ") else { return nil }
        return bytes[(scheme.count + 1)...]
    }

    /// True when two digests are equal; every byte is compared whatever the first difference.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
