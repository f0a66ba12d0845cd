import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import Testing

/// The service's budget of priority-10 Live Activity updates, through the REST API: past it, an update
/// asking for 10 goes at 5, the answer says so and `/metrics` counts it; instances on one database share it.
@Suite("Live Activity priority-10 budget through the REST API", .serialized)
struct LiveActivityBudgetTests {
    private static let liveTopic = ServiceHarness.topic + ".push-type.liveactivity"

    private static func register(_ client: TestHTTPClient, token: String, activity: String) async throws {
        let answer = try await client.send(
            "POST", "/v1/devices",
            json: [
                "token": .string(token), "user_id": "ana", "environment": "development", "kind": "live_activity",
                "activity_id": .string(activity),
            ])
        #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
    }

    private static func update(_ step: Int, priority: Int) -> JSONValue {
        ["content-state": ["step": .int(Int64(step))], "priority": .int(Int64(priority))]
    }

    /// The `apns-priority` each mock record went at, by the update's `step`.
    private static func priorities(_ records: [MockAPNSRecord]) -> [Int: String] {
        var byStep: [Int: String] = [:]
        for record in records {
            guard let step = (try? JSONValue.parse(record.payload))?["aps"]?["content-state"]?["step"]?.intValue else { continue }
            byStep[step] = record.header("apns-priority")
        }
        return byStep
    }

    private static func metric(_ client: TestHTTPClient, _ name: String) async throws -> Int? {
        let text = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.dropFirst(name.count + 1)) }
    }

    @Test("past the budget an update asking for 10 goes at 5; the answer and /metrics say so; refused requests spend nothing")
    func downgradesPastTheBudget() async throws {
        try await ChannelHarness.run(configure: { $0.liveActivities.priority10PerHour = 2 }) { harness in
            let client = harness.client
            try await Self.register(client, token: ServiceHarness.randomToken(), activity: "walk-5")
            // Too large (413): refused before the budget is touched.
            let big = try await client.send(
                "POST", "/v1/live-activities/walk-5/update",
                json: ["content-state": ["text": .string(String(repeating: "x", count: 5_000))], "priority": 10])
            #expect(big.status == 413 && big.errorCode == "payload_too_large", "\(big.text)")
            #expect(big.errorMessage?.hasSuffix("a Live Activity push takes at most \(PushType.liveactivity.maxPayloadBytes)") == true, "\(big.text)")
            var answers: [(priority: Int?, downgraded: Bool?)] = []
            for (step, priority) in [(1, 10), (2, 5), (3, 10), (4, 10), (5, 10)] {
                let answer = try await client.send("POST", "/v1/live-activities/walk-5/update", json: Self.update(step, priority: priority))
                #expect(answer.status == 202, "\(String(decoding: answer.body, as: UTF8.self))")
                answers.append((answer.json?["priority"]?.intValue, answer.json?["priority_downgraded"]?.boolValue))
            }
            #expect(answers.map(\.priority) == [10, 5, 10, 5, 5])
            #expect(answers.map(\.downgraded) == [false, false, false, true, true])
            let records = try #require(
                await harness.mock.waitForRecords(count: 5, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            #expect(Self.priorities(records) == [1: "10", 2: "5", 3: "10", 4: "5", 5: "5"])
            // Ends are not counted and keep their priority.
            let end = try await client.send("POST", "/v1/live-activities/walk-5/end", json: ["content-state": ["step": 6]])
            #expect(end.json?["priority"]?.intValue == 10 && end.json?["priority_downgraded"]?.boolValue == false)
            #expect(try await Self.metric(client, "push_live_activity_priority_downgrades_total") == 2)
            #expect(try await Self.metric(client, "push_live_activity_priority10_updates_total") == 2)
            #expect(harness.server.metrics.liveActivities.downgrades == 2)
        }
    }

    @Test("two instances on one PostgreSQL database grant priority 10 to exactly the budget between them")
    func instancesShareTheBudget() async throws {
        let cluster = try await ClusterHarness.start(
            instances: 2, mockTopics: [ServiceHarness.topic, Self.liveTopic], configure: { $0.liveActivities.priority10PerHour = 4 })
        do {
            try await Self.register(cluster.client(0), token: ServiceHarness.randomToken(), activity: "walk-11")
            let answers = try await ClusterHarness.concurrently(12, width: 12) { step in
                let answer = try await cluster.client(step).send(
                    "POST", "/v1/live-activities/walk-11/update", json: Self.update(step, priority: 10))
                return answer.json?["priority"]?.intValue
            }
            #expect(answers.filter { $0 == 10 }.count == 4)
            #expect(answers.filter { $0 == 5 }.count == 8)
            let records = try #require(
                await cluster.mock.waitForRecords(count: 12, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            let sent = Self.priorities(records)
            #expect(sent.values.filter { $0 == "10" }.count == 4)
            #expect((0..<12).allSatisfy { sent[$0] == (answers[$0] == 10 ? "10" : "5") }, "each went at the priority its answer named")
            var downgrades = 0
            for client in cluster.clients { downgrades += try await Self.metric(client, "push_live_activity_priority_downgrades_total") ?? 0 }
            #expect(downgrades == 8)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
