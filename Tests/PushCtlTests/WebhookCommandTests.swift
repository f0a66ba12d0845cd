import Foundation
import JSON
import Testing

/// `pushctl webhooks ...` against a real `push-server --embedded`.
@Suite("pushctl webhooks against a real push-server", .serialized)
struct WebhookCommandTests {
    @Test("webhooks add (generated and given secrets), ls, deliveries, rm; unknown event types are usage errors")
    func webhookFlow() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let env = server.environment
        let added = try PushCtlProcess.run(
            ["webhooks", "add", "http://127.0.0.1:9/events", "--id", "ops", "--events", "notification.rejected,device.invalidated"],
            environment: env)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("registered webhook ops"))
        #expect(added.stdout.contains("secret: whsec_"))

        let secretFile = server.directory.appendingPathComponent("crm.secret").path
        try "a-secret-of-enough-length\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let given = try PushCtlProcess.run(
            ["webhooks", "add", "https://crm.example.com/hooks", "--id", "crm", "--secret-file", secretFile, "--output", "json"],
            environment: env)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(try JSONValue.parse(Array(given.stdout.utf8))["secret"]?.stringValue == "a-secret-of-enough-length")

        let list = try PushCtlProcess.run(["webhooks", "ls", "--output", "json"], environment: env)
        let hooks = try JSONValue.parse(Array(list.stdout.utf8))["webhooks"]?.arrayValue ?? []
        #expect(hooks.compactMap { $0["id"]?.stringValue } == ["ops", "crm"])
        #expect(!list.stdout.contains("a-secret-of-enough-length"), "listings never show secrets")
        #expect(hooks.first?["events"]?.arrayValue?.count == 2)

        let deliveries = try PushCtlProcess.run(["webhooks", "deliveries", "ops"], environment: env)
        #expect(deliveries.status == 0)
        #expect(deliveries.stdout.contains("no failed deliveries"))

        let bad = try PushCtlProcess.run(["webhooks", "add", "http://x", "--events", "nope"], environment: env)
        #expect(bad.status == 64)
        let duplicate = try PushCtlProcess.run(["webhooks", "add", "http://127.0.0.1:9/", "--id", "ops"], environment: env)
        #expect(duplicate.status == 1)

        #expect(try PushCtlProcess.run(["webhooks", "rm", "crm"], environment: env).status == 0)
        let missing = try PushCtlProcess.run(["webhooks", "rm", "crm"], environment: env)
        #expect(missing.status == 1)
        let after = try PushCtlProcess.run(["webhooks", "ls", "--output", "json"], environment: env)
        #expect(try JSONValue.parse(Array(after.stdout.utf8))["webhooks"]?.arrayValue?.count == 1)
    }
}
