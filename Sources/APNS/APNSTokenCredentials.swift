import Foundation
import PushTLS

/// Token-based (JWT) provider authentication: an APNs signing key (`.p8`, PKCS#8 PEM, EC P-256), its
/// key id and the team id. Connections then use TLS without a client certificate and every request
/// carries `authorization: bearer <jwt>` (see ``APNSTokenProvider``).
public struct APNSTokenCredentials: Sendable {
    /// The signing key as PKCS#8 PEM ("BEGIN PRIVATE KEY"), as Apple's `.p8` download holds it.
    public var privateKeyPEM: String
    /// The 10-character key id Apple shows for the key (the JWT's `kid`).
    public var keyID: String
    /// The 10-character team id (the JWT's `iss`).
    public var teamID: String
    /// Age after which a token is replaced (default 50 minutes). Clamped to
    /// ``minimumRefreshInterval``…``maximumRefreshInterval`` so a token is never replaced more often than
    /// every 20 minutes (429 TooManyProviderTokenUpdates) nor used past Apple's hour (403 ExpiredProviderToken).
    public var refreshAfter: Duration = .seconds(50 * 60)

    /// Apple refuses new tokens more often than every 20 minutes.
    public static let minimumRefreshInterval: Duration = .seconds(20 * 60)
    /// The latest a token is replaced: 5 minutes before Apple's one-hour limit, for requests in flight.
    public static let maximumRefreshInterval: Duration = .seconds(55 * 60)

    /// Credentials from the key's PEM text and its ids. Throws ``APNSTokenCredentialsError`` when an id
    /// is not 10 letters or digits or the key is not an EC P-256 PKCS#8 key.
    public init(privateKeyPEM: String, keyID: String, teamID: String) throws {
        guard Self.isAppleID(keyID) else { throw APNSTokenCredentialsError("key id must be 10 letters or digits, got \"\(keyID)\"") }
        guard Self.isAppleID(teamID) else { throw APNSTokenCredentialsError("team id must be 10 letters or digits, got \"\(teamID)\"") }
        do {
            _ = try ES256PrivateKey(pkcs8PEM: privateKeyPEM)
        } catch {
            throw APNSTokenCredentialsError("the signing key is not a PKCS#8 EC P-256 key: \(error)")
        }
        self.privateKeyPEM = privateKeyPEM
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads a `.p8` file (the signing key Apple lets you download once) and checks it like `init`.
    public static func load(p8Path: String, keyID: String, teamID: String) throws -> APNSTokenCredentials {
        let text: String
        do {
            text = try String(contentsOfFile: p8Path, encoding: .utf8)
        } catch {
            throw APNSTokenCredentialsError("cannot read \(p8Path): \(error.localizedDescription)")
        }
        return try APNSTokenCredentials(privateKeyPEM: text, keyID: keyID, teamID: teamID)
    }

    /// `refreshAfter` within the allowed range.
    var effectiveRefreshAfter: Duration {
        min(Self.maximumRefreshInterval, max(Self.minimumRefreshInterval, refreshAfter))
    }

    /// Apple's key and team ids: 10 ASCII letters or digits.
    static func isAppleID(_ text: String) -> Bool {
        text.utf8.count == 10
            && text.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            }
    }
}

/// Token credentials that cannot be used: a malformed id, an unreadable file or a key that is not P-256.
public struct APNSTokenCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
