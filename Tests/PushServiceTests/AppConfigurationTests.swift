import APNSCore
import Foundation
import PushTLSTesting
import TestSupport
import Testing

@testable import PushService

@Suite("several apps: configuration and routing by topic")
struct AppConfigurationTests {
    /// A sender that is never called (routing tests only look at which app is chosen).
    struct IdleSender: APNSSender {
        func send(_ notification: APNSNotification) async throws -> APNSOutcome {
            throw APNSTransportError(.notSent, "idle")
        }
    }

    static func app(_ name: String, _ topics: [String], anyTopic: Bool = false) -> PushApp {
        PushApp(name: name, topics: topics, servesAnyTopic: anyTopic, production: IdleSender(), development: IdleSender())
    }

    @Test(
        "a topic finds the app that lists it, else the app of its bundle id without a push type's suffix",
        arguments: [
            ("com.a", "a"), ("com.a.voip", "a"), ("com.a.push-type.liveactivity", "a"), ("com.a.complication", "a"),
            ("com.b", "b"), ("com.b.voip", "b-voip"), ("com.b.voip-ptt", "b"), ("com.c", nil), ("com.a.other", nil),
            (".voip", nil),
        ] as [(String, String?)])
    func routing(topic: String, app: String?) {
        let senders = PushSenders(apps: [Self.app("a", ["com.a"]), Self.app("b", ["com.b"]), Self.app("b-voip", ["com.b.voip"])])
        #expect(senders.app(forTopic: topic)?.name == app)
    }

    @Test("the single app of a configuration without apps takes every topic; listed topics still go to their app")
    func anyTopic() {
        let senders = PushSenders(apps: [Self.app("a", ["com.a"]), Self.app("default", [], anyTopic: true)])
        #expect(senders.app(forTopic: "com.a.voip")?.name == "a")
        #expect(senders.app(forTopic: "org.anything")?.name == "default")
        #expect(PushSenders(production: IdleSender(), development: IdleSender()).app(forTopic: "x.y")?.name == "default")
    }

    @Test("apps in the file: names, credentials, limits and endpoints; the first bundle id is the default topic")
    func parsesApps() throws {
        let file = try Self.write(
            """
            {"apps": [
              {"name": "main", "topic": "com.a", "topics": ["com.a.widgets"], "p12": "/a.p12", "password": "pw",
               "connections": 3, "max_in_flight": 200},
              {"topic": "com.b", "p8": "/team.p8", "key_id": "KEY123ABCD", "team_id": "TEAM12345A",
               "host": "127.0.0.1", "port": 2197, "ca": "/ca.pem"}
            ]}
            """)
        let configuration = try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        #expect(configuration.apps.count == 2)
        let main = configuration.apps[0]
        #expect(main.name == "main" && main.configuredTopics == ["com.a", "com.a.widgets"])
        #expect(main.p12Path == "/a.p12" && main.password == "pw" && main.connections == 3 && main.maxInFlight == 200)
        let second = configuration.apps[1]
        #expect(second.name == "com.b" && second.usesToken && second.keyID == "KEY123ABCD")
        #expect(configuration.apnsSettings(for: second).port == 2197)
        #expect(configuration.apnsSettings(for: main).connections == 3)
        #expect(configuration.defaultTopic == "com.a")
    }

    @Test("the example file for several apps loads: three apps, two sharing one team's .p8")
    func exampleFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let configuration = try PushServiceConfiguration.load(
            arguments: ["--config", root.appendingPathComponent("Resources/push-server.apps.example.json").path], environment: [:])
        #expect(configuration.apps.map(\.name) == ["sniffmeet", "dogwalk", "dogwalk-staging"])
        #expect(configuration.apps[1].p8Path == configuration.apps[2].p8Path)
        #expect(configuration.apnsSettings(for: configuration.apps[0]).connections == 4)
        #expect(configuration.apnsSettings(for: configuration.apps[1]).connections == 2)
    }

    @Test("without apps, the single-credential settings are one app named default that takes every topic")
    func singleApp() throws {
        let configuration = try PushServiceConfiguration.load(
            arguments: ["--apns-p12", "/x.p12", "--topic", "com.a"], environment: ["PUSH_APNS_PASSWORD": "pw"])
        let apps = configuration.resolvedApps
        #expect(apps.count == 1)
        #expect(apps[0].name == "default" && apps[0].servesAnyTopic && apps[0].p12Path == "/x.p12" && apps[0].password == "pw")
    }

    @Test(
        "bad app lists are configuration errors naming the problem",
        arguments: [
            (#"[{"topic": "com.a", "p12": "/a.p12"}, {"topic": "com.a", "p12": "/b.p12"}]"#, "topic com.a is served by two apps"),
            (#"[{"topic": "com.a", "p8": "/a.p8", "team_id": "TEAM12345A"}]"#, "needs key_id and team_id"),
            (#"[{"topic": "com.a"}]"#, "set either p12"),
            (#"[{"topic": "com.a", "p12": "/a.p12", "p8": "/a.p8"}]"#, "set either p12"),
            (#"[{"p12": "/a.p12"}]"#, "topic (the bundle id) is required"),
            (#"[{"name": "x", "topic": "com.a", "p12": "/a.p12"}, {"name": "x", "topic": "com.b", "p12": "/b.p12"}]"#, "used twice"),
            (#"[{"topic": "com.a", "p12": "/a.p12", "colour": "red"}]"#, "colour"),
        ])
    func badApps(json: String, message: String) throws {
        let file = try Self.write(#"{"apps": "# + json + "}")
        #expect {
            _ = try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.exitCode == 78 && error.message.contains(message)
        }
    }

    @Test("push-server exits 78 for a duplicate topic, a .p8 without key id, and two apps whose certificates list one topic")
    func exitCodes() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try TestCredentialFiles.write(to: directory + "/a", bundleID: "com.a", topics: ["com.a", "com.shared"], password: "pw")
        let second = try TestCredentialFiles.write(to: directory + "/b", bundleID: "com.b", topics: ["com.b", "com.shared"], password: "pw")
        let common = ["--data-dir", directory + "/data", "--api-key-file", try SecretFiles.write("k", to: directory + "/api-key")]
        let duplicate = try Self.write(
            #"{"apps": [{"topic": "com.a", "p12": "\#(first.clientP12Path)", "password": "pw"}, {"topic": "com.a", "p12": "\#(second.clientP12Path)", "password": "pw"}]}"#
        )
        #expect(await StartupCheckTests.run(common + ["--config", duplicate]) == 78)
        let noKeyID = try Self.write(#"{"apps": [{"topic": "com.a", "p8": "\#(directory)/a.p8", "team_id": "TEAM12345A"}]}"#)
        #expect(await StartupCheckTests.run(common + ["--config", noKeyID]) == 78)
        let shared = try Self.write(
            #"{"apps": [{"topic": "com.a", "p12": "\#(first.clientP12Path)", "password": "pw"}, {"topic": "com.b", "p12": "\#(second.clientP12Path)", "password": "pw"}]}"#
        )
        let error = await StartupCheckTests.startupError(common + ["--config", shared])
        #expect(error?.exitCode == 78)
        #expect(error?.message == "topic com.shared is served by two apps: com.a and com.b")
        let wrongCertificate = try Self.write(#"{"apps": [{"topic": "com.c", "p12": "\#(first.clientP12Path)", "password": "pw"}]}"#)
        #expect(
            await StartupCheckTests.startupError(common + ["--config", wrongCertificate])?.message.contains("not for app com.c's topic com.c") == true
        )
    }

    static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
