import APNS
import APNSCore
import Foundation
import JSON
import PushTLS
import Testing

@Suite("APNs token provider and credentials")
struct APNSTokenProviderTests {
    func provider(_ clock: TokenTestClock, refreshAfter: Duration? = nil) throws -> APNSTokenProvider {
        var credentials = try APNSTokenCredentials(
            privateKeyPEM: try ES256PrivateKey.generate().pkcs8PEM, keyID: "KEY123ABCD", teamID: "TEAM12345A")
        if let refreshAfter { credentials.refreshAfter = refreshAfter }
        return try APNSTokenProvider(credentials: credentials, clock: clock.read)
    }

    @Test("schedule with an injected clock: reused at +19 min, new at +51, never older than 60")
    func schedule() throws {
        let clock = TokenTestClock()
        let provider = try provider(clock)
        let first = try provider.currentToken()
        clock.advance(minutes: 19)
        #expect(try provider.currentToken() == first)
        clock.advance(minutes: 30)
        #expect(try provider.currentToken() == first)
        clock.advance(minutes: 2)
        let second = try provider.currentToken()
        #expect(second != first)
        #expect(second.issuedAt.timeIntervalSince(first.issuedAt) == 51 * 60)
        #expect(try decodeJWT(second.jwt).claims["iat"]?.int64Value == Int64(second.issuedAt.timeIntervalSince1970))
        #expect(provider.tokensIssued == 2)
    }

    @Test("refreshAfter is clamped: never replaced under 20 minutes, never used past 55")
    func clamped() throws {
        let clock = TokenTestClock()
        let eager = try provider(clock, refreshAfter: .seconds(60))
        let lazy = try provider(clock, refreshAfter: .seconds(3 * 3600))
        let (eagerFirst, lazyFirst) = (try eager.currentToken(), try lazy.currentToken())
        clock.advance(minutes: 19.9)
        #expect(try eager.currentToken() == eagerFirst)
        clock.advance(minutes: 0.1)
        #expect(try eager.currentToken() != eagerFirst)
        clock.advance(minutes: 35)
        #expect(try lazy.currentToken() != lazyFirst)
        // Sampled every minute for three hours, the token in use is never an hour old.
        for _ in 0..<180 {
            clock.advance(minutes: 1)
            #expect(clock.read().timeIntervalSince(try lazy.currentToken().issuedAt) < 3600)
        }
    }

    @Test("refresh(replacing:) replaces only the refused token")
    func refreshReplacing() throws {
        let clock = TokenTestClock()
        let provider = try provider(clock)
        let first = try provider.currentToken()
        let second = try provider.refresh(replacing: first.jwt)
        #expect(second != first)
        #expect(try provider.refresh(replacing: first.jwt) == second)
        #expect(provider.tokensIssued == 2)
    }

    @Test("credentials: ids must be 10 letters or digits, the key EC P-256; load(p8Path:) reads a .p8")
    func credentials() throws {
        let pem = try ES256PrivateKey.generate().pkcs8PEM
        #expect(throws: APNSTokenCredentialsError.self) { try APNSTokenCredentials(privateKeyPEM: pem, keyID: "SHORT", teamID: "TEAM12345A") }
        #expect(throws: APNSTokenCredentialsError.self) { try APNSTokenCredentials(privateKeyPEM: pem, keyID: "KEY123ABCD", teamID: "TEAM-12345") }
        #expect(throws: APNSTokenCredentialsError.self) { try APNSTokenCredentials(privateKeyPEM: "nope", keyID: "KEY123ABCD", teamID: "TEAM12345A") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID().uuidString).p8").path
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try APNSTokenCredentials.load(p8Path: path, keyID: "KEY123ABCD", teamID: "TEAM12345A")
        #expect(loaded.privateKeyPEM == pem)
        #expect(throws: APNSTokenCredentialsError.self) {
            try APNSTokenCredentials.load(p8Path: path + ".missing", keyID: "KEY123ABCD", teamID: "TEAM12345A")
        }
    }
}
