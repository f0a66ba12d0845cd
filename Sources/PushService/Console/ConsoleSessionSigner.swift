import Foundation
import PushTLS

/// Makes and checks the console's session cookies and CSRF tokens with HMAC-SHA256 under one secret.
///
/// A cookie is `v1.<session id>.<key reference>.<expiry ms>.<signature>`, the signature being the hex
/// HMAC of everything before it. Nothing is stored: any instance holding the same secret accepts the
/// cookies of the others, and a session ends when its key is no longer configured, when it expires, or
/// when the secret changes.
struct ConsoleSessionSigner: Sendable {
    /// The HMAC key (the configured `console.session_secret`, or random bytes).
    let secret: [UInt8]
    /// How long a session lasts after sign-in.
    let lifetime: Duration

    init(secret: [UInt8], lifetime: Duration = .seconds(8 * 3600)) {
        self.secret = secret
        self.lifetime = lifetime
    }

    /// A new session for `key` starting at `now`, and its cookie value.
    func issue(for key: APIKey, now: Date) -> (session: ConsoleSession, cookie: String) {
        let millis = Int64((now.timeIntervalSince1970 * 1000).rounded()) + Int64(lifetime / .milliseconds(1))
        let session = ConsoleSession(id: Self.randomHex(bytes: 16), keyReference: reference(of: key), expiresAtMillis: millis)
        return (session, cookie(for: session))
    }

    /// The cookie value of `session`.
    func cookie(for session: ConsoleSession) -> String {
        let body = "v1.\(session.id).\(session.keyReference).\(session.expiresAtMillis)"
        return body + "." + HMACSHA256.hex(key: secret, message: Array(body.utf8))
    }

    /// The session `cookie` carries and the key it names among `keys`, or why it is refused.
    func verify(_ cookie: String, keys: [APIKey], now: Date) -> Result<(ConsoleSession, APIKey), ConsoleSessionRefusal> {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "v1", Self.isHex(parts[1], count: 32), Self.isHex(parts[2], count: 32),
            let expires = Int64(parts[3]), Self.isHex(parts[4], count: 64)
        else { return .failure(.malformed) }
        let body = parts[0..<4].joined(separator: ".")
        let expected = HMACSHA256.authenticationCode(key: secret, message: Array(body.utf8))
        guard let presented = Self.bytes(hex: parts[4]), APIKeyAuthenticator.constantTimeEqual(expected, presented) else {
            return .failure(.badSignature)
        }
        guard Double(expires) / 1000 > now.timeIntervalSince1970 else { return .failure(.expired) }
        let session = ConsoleSession(id: String(parts[1]), keyReference: String(parts[2]), expiresAtMillis: expires)
        guard let key = keys.first(where: { reference(of: $0) == session.keyReference }) else { return .failure(.keyRemoved) }
        return .success((session, key))
    }

    /// The CSRF token of `session`: every form of the session carries it and every POST must return it.
    func csrfToken(for session: ConsoleSession) -> String {
        HMACSHA256.hex(key: secret, message: Array("csrf.\(session.id)".utf8))
    }

    /// Whether `presented` is `session`'s CSRF token (compared in constant time).
    func checkCSRF(_ presented: String?, session: ConsoleSession) -> Bool {
        guard let presented, Self.isHex(Substring(presented), count: 64), let bytes = Self.bytes(hex: Substring(presented)) else {
            return false
        }
        let expected = HMACSHA256.authenticationCode(key: secret, message: Array("csrf.\(session.id)".utf8))
        return APIKeyAuthenticator.constantTimeEqual(expected, bytes)
    }

    /// 32 hex digits naming `key`: an HMAC of its digest under the secret, so the cookie reveals no digest.
    func reference(of key: APIKey) -> String {
        String(HMACSHA256.hex(key: secret, message: Array("key.".utf8) + key.digest).prefix(32))
    }

    /// `bytes` random bytes as lower-case hex.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in hexByte(UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// `count` random bytes (a generated secret).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        byte < 0x10 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
    }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(high)
            index += 2
        }
        return out
    }
}
