import Foundation

/// A signed-in console visitor: which API key signed in, until when, and the session's own id (its CSRF
/// token is derived from it).
struct ConsoleSession: Sendable, Equatable {
    /// 32 random hex digits.
    var id: String
    /// The signed-in key's reference (`ConsoleSessionSigner.reference(of:)`): names the key without revealing
    /// anything a guess of its secret could be checked against.
    var keyReference: String
    /// When the session ends, in milliseconds since 1970.
    var expiresAtMillis: Int64
}

/// Why a session cookie was refused.
enum ConsoleSessionRefusal: Error, Equatable, Sendable {
    /// Not a cookie this server made, or one changed since.
    case malformed
    /// The signature does not match (changed, or signed with another secret).
    case badSignature
    /// Past its end.
    case expired
    /// Its key is no longer configured (removed by a reload).
    case keyRemoved
}
