import Foundation
import Testing

@testable import PushService

@Suite("console sessions signed with the configured secret")
struct ConsoleSessionTests {
    let secret = Array("a console secret of at least 32 characters".utf8)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func key(_ name: String = "ops", secret: String = "ops-secret-0123456789") throws -> APIKey {
        try APIKey(name: name, secret: secret, scopes: [.read])
    }

    @Test("a session verifies on any signer with the same secret and names its key")
    func roundTrip() throws {
        let key = try key()
        let (session, cookie) = ConsoleSessionSigner(secret: secret).issue(for: key, now: now)
        let other = ConsoleSessionSigner(secret: secret)
        let verified = try other.verify(cookie, keys: [try self.key("other", secret: "other-secret-0123"), key], now: now).get()
        #expect(verified.0 == session)
        #expect(verified.1.name == "ops")
        // The cookie names the key by an HMAC, never by its digest.
        let digestHex = key.digest.map { String(format: "%02x", $0) }.joined()
        #expect(!cookie.contains(digestHex.prefix(32)))
        #expect(!cookie.contains("ops"))
    }

    @Test("a changed cookie, or one signed with another secret, is refused")
    func tamper() throws {
        let key = try key()
        let signer = ConsoleSessionSigner(secret: secret)
        let (_, cookie) = signer.issue(for: key, now: now)
        var parts = cookie.split(separator: ".").map(String.init)
        // A later expiry with the old signature.
        parts[3] = String(Int64(parts[3])! + 86_400_000)
        #expect(signer.verify(parts.joined(separator: "."), keys: [key], now: now) == .failure(.badSignature))
        // One flipped digit of the signature.
        var signature = Array(cookie.split(separator: ".")[4])
        signature[0] = signature[0] == "0" ? "1" : "0"
        parts = cookie.split(separator: ".").map(String.init)
        parts[4] = String(signature)
        #expect(signer.verify(parts.joined(separator: "."), keys: [key], now: now) == .failure(.badSignature))
        #expect(signer.verify(cookie + "0", keys: [key], now: now) == .failure(.malformed))
        #expect(signer.verify("", keys: [key], now: now) == .failure(.malformed))
        let otherSecret = ConsoleSessionSigner(secret: Array("another secret, also 32 characters long".utf8))
        #expect(otherSecret.verify(cookie, keys: [key], now: now) == .failure(.badSignature))
    }

    @Test("a session ends at its expiry")
    func expiry() throws {
        let key = try key()
        let signer = ConsoleSessionSigner(secret: secret, lifetime: .seconds(60))
        let (_, cookie) = signer.issue(for: key, now: now)
        #expect((try? signer.verify(cookie, keys: [key], now: now.addingTimeInterval(59)).get()) != nil)
        #expect(signer.verify(cookie, keys: [key], now: now.addingTimeInterval(60)) == .failure(.expired))
    }

    @Test("a session ends when its key is no longer configured, even if a key of the same name is")
    func keyRemoved() throws {
        let key = try key()
        let signer = ConsoleSessionSigner(secret: secret)
        let (_, cookie) = signer.issue(for: key, now: now)
        #expect(signer.verify(cookie, keys: [], now: now) == .failure(.keyRemoved))
        let rotated = try self.key("ops", secret: "ops-rotated-secret-0123")
        #expect(signer.verify(cookie, keys: [rotated], now: now) == .failure(.keyRemoved))
    }

    @Test("the CSRF token belongs to one session and one secret")
    func csrf() throws {
        let key = try key()
        let signer = ConsoleSessionSigner(secret: secret)
        let (session, _) = signer.issue(for: key, now: now)
        let (other, _) = signer.issue(for: key, now: now)
        let token = signer.csrfToken(for: session)
        #expect(signer.checkCSRF(token, session: session))
        #expect(!signer.checkCSRF(signer.csrfToken(for: other), session: session))
        #expect(!signer.checkCSRF(nil, session: session))
        #expect(!signer.checkCSRF("", session: session))
        #expect(!signer.checkCSRF(token.uppercased(), session: session))
        #expect(!ConsoleSessionSigner(secret: Array("another secret, also 32 characters long".utf8)).checkCSRF(token, session: session))
    }
}

extension Result where Success == (ConsoleSession, APIKey), Failure == ConsoleSessionRefusal {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.failure(let a), .failure(let b)): a == b
        case (.success(let a), .success(let b)): a.0 == b.0 && a.1 == b.1
        default: false
        }
    }
}
