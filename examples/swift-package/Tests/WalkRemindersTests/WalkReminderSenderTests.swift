import APNS
import APNSCore
import APNSMock
import Testing
import WalkReminders

/// The pattern to copy: one in-process mock per test (port 0), a real APNs client pointed at it,
/// rules to make chosen tokens fail, records to check what was sent, `stop()` at the end.
struct MockAPNS {
    let server: MockAPNSServer
    let client: APNSClient
    static let topic = "com.example.walks"

    init() throws {
        let (configuration, credential) = try MockAPNSServer.makeForTesting(bundleID: Self.topic)
        server = try MockAPNSServer(configuration: configuration)
        client = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: .identity(try credential.identity()),
                environment: .custom(host: "127.0.0.1", port: server.port, isDevelopment: true),
                trustedCAPEM: server.credentials.caPEM))
    }

    func stop() async {
        await client.shutdown(deadline: .seconds(5))
        server.stop()
    }
}

let phone = String(repeating: "ab", count: 32)
let tablet = String(repeating: "cd", count: 32)
let watch = String(repeating: "ef", count: 32)

@Suite("WalkReminderSender against the in-process mock APNs")
struct WalkReminderSenderTests {
    @Test("every device gets the reminder, exactly as built")
    func delivers() async throws {
        let mock = try MockAPNS()
        let sender = WalkReminderSender(client: mock.client, topic: MockAPNS.topic, tokens: ["mina": [phone, tablet]])
        let report = try await sender.remind("mina", dog: "Rex")
        #expect(report.delivered == [phone, tablet])
        let records = try #require(await mock.server.waitForRecords(count: 2, timeout: .seconds(10)))
        #expect(records.map(\.token) == [phone, tablet])
        #expect(records.allSatisfy { $0.header("apns-topic") == MockAPNS.topic && $0.header("apns-push-type") == "alert" })
        #expect(String(decoding: records[0].payload, as: UTF8.self).contains(#""category":"WALK_REMINDER""#))
        await mock.stop()
    }

    @Test("a token APNs calls Unregistered is removed; a throttled one is kept")
    func removesDeadTokens() async throws {
        let mock = try MockAPNS()
        mock.server.addRule(MockAPNSRule(match: .init(token: tablet), answer: .reject(.unregistered)))
        mock.server.addRule(MockAPNSRule(match: .init(token: watch), answer: .reject(.tooManyRequests), times: 1))
        let sender = WalkReminderSender(client: mock.client, topic: MockAPNS.topic, tokens: ["mina": [phone, tablet, watch]])
        let report = try await sender.remind("mina", dog: "Rex")
        #expect(report == .init(delivered: [phone], removed: [tablet], failed: [watch]))
        #expect(await sender.tokens(of: "mina") == [phone, watch])
        // The one-time rule is used up: the next round reaches the watch.
        #expect(try await sender.remind("mina", dog: "Rex").delivered == [phone, watch])
        await mock.stop()
    }

    @Test("a GOAWAY between two rounds: the client reconnects and nothing is lost")
    func survivesGoAway() async throws {
        let mock = try MockAPNS()
        let sender = WalkReminderSender(client: mock.client, topic: MockAPNS.topic, tokens: ["mina": [phone, tablet]])
        #expect(try await sender.remind("mina", dog: "Rex").delivered.count == 2)
        #expect(mock.server.goAwayAll(reason: .shutdown) == 1)
        #expect(try await sender.remind("mina", dog: "Rex").delivered.count == 2)
        let records = try #require(await mock.server.waitForRecords(count: 4, timeout: .seconds(10)))
        #expect(Set(records.map(\.connectionID)).count == 2)
        await mock.stop()
    }

    @Test("payload rules: a reminder for one dog is refused by matching a JSON pointer")
    func payloadRule() async throws {
        let mock = try MockAPNS()
        mock.server.addRule(
            MockAPNSRule(
                match: .init(payloadPointer: "/aps/alert", payloadEquals: "Time for a walk with Bori"),
                answer: .reject(.badDeviceToken)))
        let sender = WalkReminderSender(client: mock.client, topic: MockAPNS.topic, tokens: ["mina": [phone], "jun": [tablet]])
        #expect(try await sender.remind("mina", dog: "Rex").delivered == [phone])
        #expect(try await sender.remind("jun", dog: "Bori").removed == [tablet])
        await mock.stop()
    }
}
