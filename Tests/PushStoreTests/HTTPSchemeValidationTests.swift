import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// URLs must start with `http://` or `https://`, checked byte by byte, whatever follows the slashes.
@Suite("HTTP scheme validation")
struct HTTPSchemeValidationTests {
    @Test(
        "a URL with a combining mark or emoji modifier right after the scheme is accepted",
        arguments: ["https://\u{1F3FB}", "http://\u{0301}host", "https://example.com/e"])
    func accepted(url: String) throws {
        #expect(StoreValidation.hasHTTPScheme(url))
        let endpoint = WebhookEndpoint(id: "hook", url: url, events: [.deviceInvalidated], secret: "s", createdAt: Date())
        try endpoint.validate()
    }

    @Test("other schemes and near misses are refused", arguments: ["ftp://x", "https:/x", "HTTPS://x", " https://x", ""])
    func refused(url: String) {
        #expect(!StoreValidation.hasHTTPScheme(url))
        let endpoint = WebhookEndpoint(id: "hook", url: url, events: [.deviceInvalidated], secret: "s", createdAt: Date())
        #expect(throws: PushStoreError.self) { try endpoint.validate() }
    }
}
