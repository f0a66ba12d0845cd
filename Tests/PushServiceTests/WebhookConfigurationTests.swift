import Foundation
import PushService
import PushStore
import Testing

/// The configuration file's `webhooks` list and `webhook_delivery` settings.
@Suite("Webhook configuration")
struct WebhookConfigurationTests {
    static func load(_ body: String, in directory: URL) throws -> PushServiceConfiguration {
        let file = directory.appendingPathComponent("c.json").path
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        return try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
    }

    @Test("endpoints with inline or file secrets and delivery settings load; bad ones name the field")
    func loading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("ops.secret").path
        try "from-a-file-0123456789\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let loaded = try Self.load(
            """
            {"webhooks": [
               {"id": "ops", "url": "https://ops.example.com/e", "events": ["*"], "secret_file": "\(secretFile)"},
               {"id": "crm", "url": "http://10.0.0.5/h", "events": ["mate_request.created"], "secret": "inline-secret-abcdef"}],
             "webhook_delivery": {"timeout_s": 3, "concurrency": 2, "batch_size": 10, "give_up_after_s": 90000},
             "retention": {"webhook_events_s": 3600}}
            """, in: directory)
        let endpoints = loaded.webhooks.endpoints
        #expect(endpoints.map(\.id) == ["ops", "crm"])
        #expect(endpoints[0].secret == "from-a-file-0123456789")
        #expect(endpoints[0].events == Set(WebhookEventType.allCases))
        #expect(endpoints[1].events == [.mateRequestCreated])
        #expect(endpoints.allSatisfy { $0.source == .config })
        #expect(loaded.webhooks.timeout == .seconds(3) && loaded.webhooks.concurrency == 2 && loaded.webhooks.batchSize == 10)
        #expect(loaded.webhooks.retry.giveUpAfter == .seconds(90_000))
        #expect(loaded.retention.webhookEvent == .seconds(3_600))

        for (body, field) in [
            (#"{"webhooks": [{"id": "a", "url": "ftp://x", "events": ["*"], "secret": "s"}]}"#, "webhooks[0]"),
            (#"{"webhooks": [{"id": "a", "url": "http://x", "events": ["nope"], "secret": "s"}]}"#, "webhooks[0].events"),
            (#"{"webhooks": [{"id": "a", "url": "http://x", "events": ["*"]}]}"#, "webhooks[0].secret"),
            (#"{"webhooks": [{"id": "a", "url": "http://x", "events": [], "secret": "s"}]}"#, "webhooks[0].events"),
            (#"{"webhooks": [{"id": "a", "url": "http://x", "events": ["*"], "secret_file": "/nonexistent"}]}"#, "secret_file"),
            (
                #"{"webhooks": [{"id": "a", "url": "http://x", "events": ["*"], "secret": "s"}, {"id": "a", "url": "http://y", "events": ["*"], "secret": "t"}]}"#,
                "webhooks[1].id"
            ),
            (#"{"webhook_delivery": {"concurrency": 0}}"#, "webhook_delivery.concurrency"),
            (#"{"webhook_delivery": {"timeout_s": -1}}"#, "webhook_delivery.timeout_s"),
        ] {
            #expect {
                try Self.load(body, in: directory)
            } throws: { error in
                (error as? ConfigurationError)?.message.contains(field) == true
            }
        }
        // Durations read the same way as the retention ages: one rule, one message.
        for body in [#"{"webhook_delivery": {"poll_s": 0}}"#, #"{"retention": {"interval_s": 0}}"#] {
            #expect {
                try Self.load(body, in: directory)
            } throws: { error in
                (error as? ConfigurationError)?.message.contains("must be a positive number of seconds") == true
            }
        }
    }
}
