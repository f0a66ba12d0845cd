import Foundation
import JSON
import Testing

@Suite("pushctl channels and broadcast against a real push-server --embedded", .serialized)
struct ChannelCommandTests {
    @Test("channels add, ls, broadcast --wait (accepted), rm: the embedded mock serves channel management")
    func channelFlow() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let env = server.environment
        let add = try PushCtlProcess.run(
            ["channels", "add", "--environment", "development", "--storage", "most-recent", "--json"], environment: env)
        #expect(add.status == 0, "\(add.stderr)")
        let id = try #require(try JSONValue.parse(Array(add.stdout.utf8))["id"]?.stringValue)
        let list = try PushCtlProcess.run(["channels", "ls", "--environment", "development"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains(id))
        let send = try PushCtlProcess.run(
            [
                "broadcast", "--channel", id, "--content-state", #"{"walkers":12}"#,
                "--expiration", "\(Int(Date().timeIntervalSince1970) + 3600)", "--wait", "--json",
            ], environment: env)
        #expect(send.status == 0, "\(send.stdout) \(send.stderr)")
        let answer = try JSONValue.parse(Array(send.stdout.utf8))
        #expect(answer["notifications"]?[0]?["state"]?.stringValue == "accepted")
        #expect(answer["notifications"]?[0]?["channel_id"]?.stringValue == id)
        let ended = try PushCtlProcess.run(
            ["broadcast", "--channel", id, "--event", "end", "--content-state", #"{"walkers":0}"#, "--dismissal-date", "1", "--wait"],
            environment: env)
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(ended.stdout.contains("accepted"))
        let remove = try PushCtlProcess.run(["channels", "rm", id], environment: env)
        #expect(remove.status == 0, "\(remove.stderr)")
        let empty = try PushCtlProcess.run(["channels", "ls"], environment: env)
        #expect(empty.stdout.contains("no channels"))
        let missing = try PushCtlProcess.run(["channels", "rm", id], environment: env)
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.contains("failed with 404: no channel \(id) (hint: check the id)"), "\(missing.stderr)")
        // Apple (the embedded mock) and the store agree: no drift, nothing to reconcile.
        let apple = try PushCtlProcess.run(["channels", "apple", "--environment", "development", "--json"], environment: env)
        #expect(apple.status == 0, "\(apple.stderr)")
        #expect(apple.stdout.contains(#""only_at_apple":[]"#) && apple.stdout.contains(#""only_stored":[]"#), "\(apple.stdout)")
        let reconciled = try PushCtlProcess.run(["channels", "reconcile", "--environment", "development", "--strays", "delete"], environment: env)
        #expect(
            reconciled.status == 0 && reconciled.stdout.contains("adopted 0, deleted at Apple 0, forgotten 0"),
            "\(reconciled.stdout)\(reconciled.stderr)")
        let usage = try PushCtlProcess.run(["broadcast", "--channel", id], environment: env)
        #expect(usage.status == 64 && usage.stderr.contains("--content-state"))
        // --payload meets the service's and the mock's rule before any request: no start on a channel.
        let start = try PushCtlProcess.run(
            ["broadcast", "--channel", id, "--payload", #"{"aps":{"timestamp":1,"event":"start","content-state":{}}}"#], environment: env)
        #expect(start.status == 64, "\(start.stderr)")
        #expect(start.stderr.contains("--payload: aps.event start is not allowed: a broadcast cannot start a Live Activity"), "\(start.stderr)")
    }

    @Test("devices add --kind push-to-start and live-activity: the kinds are stored and listed")
    func tokenKinds() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let env = server.environment
        let starter = String(repeating: "cd", count: 32)
        let update = String(repeating: "ef", count: 32)
        let start = try PushCtlProcess.run(
            ["devices", "add", "--token", starter, "--user", "alice", "--kind", "push-to-start", "--attributes-type", "WalkAttributes"],
            environment: env)
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout.contains("push_to_start token"))
        let activity = try PushCtlProcess.run(
            ["devices", "add", "--token", update, "--user", "alice", "--kind", "live-activity", "--activity-id", "walk-1"],
            environment: env)
        #expect(activity.status == 0, "\(activity.stderr)")
        let list = try PushCtlProcess.run(["devices", "ls", "--user", "alice", "--json"], environment: env)
        let devices = try JSONValue.parse(Array(list.stdout.utf8))["devices"]?.arrayValue ?? []
        #expect(devices.compactMap { $0["kind"]?.stringValue } == ["push_to_start", "live_activity"])
        #expect(devices.first?["attributes_type"]?.stringValue == "WalkAttributes")
        #expect(devices.last?["activity_id"]?.stringValue == "walk-1")
        let missing = try PushCtlProcess.run(["devices", "add", "--token", starter, "--user", "alice", "--kind", "push-to-start"], environment: env)
        #expect(missing.status == 64 && missing.stderr.contains("attributes-type"))
    }
}
