import Foundation
import JSON
import PushStore
import Testing

@testable import PushService

/// SIGHUP and `POST /v1/admin/reload` replace the configuration file's webhook endpoints.
@Suite("Webhook endpoints reload")
struct WebhookReloadTests {
    static func endpoint(_ id: String) -> WebhookEndpoint {
        WebhookEndpoint(
            id: id, url: "http://127.0.0.1:9/\(id)", events: Set(WebhookEventType.allCases), secret: "secret-\(id)-0123456789",
            source: .config, createdAt: Date())
    }

    @Test("a reload swaps the file's endpoints and keeps the ones made through the API")
    func reloadSwapsConfiguredEndpoints() async throws {
        let harness = try await ServiceHarness.start { $0.webhooks.endpoints = [Self.endpoint("from-file")] }
        defer { Task { await harness.stop() } }
        let created = try await harness.client.send(
            "POST", "/v1/webhooks", json: ["id": "from-api", "url": "http://127.0.0.1:9/api", "events": ["*"]])
        #expect(created.status == 201)
        var renewed = harness.server.configuration
        renewed.webhooks.endpoints = [Self.endpoint("renewed")]
        let next = renewed
        harness.server.setReloadSource { next }
        await harness.server.reload()
        let listed = try await harness.client.send("GET", "/v1/webhooks")
        let ids = (listed.json?["webhooks"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.sorted()
        #expect(ids == ["from-api", "renewed"])
    }
}
