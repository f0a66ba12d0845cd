import PushHTTP
import PushTLS

/// One configured API key: a name for logs and metrics, the SHA-256 of the secret, scopes and limits.
///
/// Only the digest is kept, so a key configured as `sha256:<hex>` and one configured in the clear behave
/// the same and the running process holds no usable secret.
public struct APIKey: Sendable, Equatable {
    /// A bounded, non-secret name (`[A-Za-z0-9_.-]`, 1–64 characters) used in logs and metric labels.
    public var name: String
    /// SHA-256 of the key's bytes.
    public var digest: [UInt8]
    /// What the key may do.
    public var scopes: Set<APIScope>
    /// Optional per-key rate limits.
    public var rateLimit: APIRateLimit?

    /// A key given in the clear or as `sha256:<64 hex digits>`; every scope unless `scopes` says otherwise.
    public init(
        name: String, secret: String, scopes: Set<APIScope> = Set(APIScope.allCases),
        rateLimit: APIRateLimit? = nil
    ) throws(ConfigurationError) {
        guard Self.isValidName(name) else {
            throw ConfigurationError("API key name \"\(name.prefix(64))\" must be 1-64 characters of A-Z a-z 0-9 _ . -")
        }
        self.name = name
        self.digest = try Self.digest(of: secret, name: name)
        self.scopes = scopes
        self.rateLimit = rateLimit
    }

    /// The digest of a configured secret: `sha256:<hex>` decoded, otherwise SHA-256 of the secret itself.
    static func digest(of secret: String, name: String) throws(ConfigurationError) -> [UInt8] {
        if secret.hasPrefix("sha256:") {
            let hex = Array(secret.utf8.dropFirst("sha256:".count))
            guard hex.count == 64, let bytes = Self.decodeHex(hex) else {
                throw ConfigurationError("API key \(name): sha256: must be followed by 64 hex digits")
            }
            return bytes
        }
        guard !secret.isEmpty, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ConfigurationError("API key \(name) must be non-empty printable ASCII without spaces")
        }
        return SHA256Digest.hash(Array(secret.utf8))
    }

    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    private static func decodeHex(_ hex: [UInt8]) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index + 1 < hex.count {
            guard let high = HexDigit.value(hex[index]), let low = HexDigit.value(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
