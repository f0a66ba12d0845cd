import Foundation
import JSON
import Testing

@Suite("pushctl apps ls, reload and status against push-server --embedded (two apps)", .serialized)
struct AppsCommandTests {
    @Test("the embedded server runs a token app and a certificate app; both deliver; reload keeps unchanged credentials")
    func embeddedApps() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let env = server.environment
        let list = try PushCtlProcess.run(["apps", "ls", "--json"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        let apps = try JSONValue.parse(Array(list.stdout.utf8))["apps"]?.arrayValue ?? []
        #expect(apps.compactMap { $0["name"]?.stringValue } == ["sniffmeet", "dogwalk"])
        // sniffmeet signs in with a .p8 (its Live Activities need token auth), dogwalk with the .p12.
        #expect(apps.compactMap { $0["credential"]?.stringValue } == ["token", "certificate"])
        #expect(apps.last?["certificate_topics"]?.arrayValue?.compactMap(\.stringValue) == ["com.example.dogwalk"])
        #expect(apps.last?["topics"]?.arrayValue?.compactMap(\.stringValue) == ["com.example.dogwalk"])

        for (user, topic) in [("alice", "com.example.sniffmeet"), ("bob", "com.example.dogwalk")] {
            let put = try PushCtlProcess.run(["users", "put", user, "--name", user, "--dog-name", "Rex"], environment: env)
            #expect(put.status == 0, "\(put.stderr)")
            let token = String(repeating: user == "alice" ? "ab" : "cd", count: 32)
            let add = try PushCtlProcess.run(
                ["devices", "add", "--token", token, "--user", user, "--topic", topic, "--environment", "development"], environment: env)
            #expect(add.status == 0, "\(add.stderr)")
            let send = try PushCtlProcess.run(["send", "--user", user, "--body", "Walk?", "--wait", "--json"], environment: env)
            #expect(send.status == 0, "\(send.stderr)")
            #expect(try JSONValue.parse(Array(send.stdout.utf8))["notifications"]?[0]?["state"]?.stringValue == "accepted")
        }

        let table = try PushCtlProcess.run(["apps", "ls"], environment: env)
        #expect(table.stdout.contains("NAME") && table.stdout.contains("sniffmeet") && table.stdout.contains("token KEY123ABCD/TEAM12345A"))
        let status = try PushCtlProcess.run(["status"], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("APP") && status.stdout.contains("sniffmeet") && status.stdout.contains("dogwalk"))
        let reload = try PushCtlProcess.run(["reload", "--json"], environment: env)
        #expect(reload.status == 0, "\(reload.stderr)")
        let outcomes = try JSONValue.parse(Array(reload.stdout.utf8))["apps"]?.arrayValue ?? []
        #expect(outcomes.compactMap { $0["outcome"]?.stringValue } == ["unchanged", "unchanged"])
        let metrics = try PushCtlProcess.run(["status", "--json"], environment: env)
        #expect(try JSONValue.parse(Array(metrics.stdout.utf8))["health"]?["apps"]?.arrayValue?.count == 2)
    }
}
