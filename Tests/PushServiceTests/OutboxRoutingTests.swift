import APNSCore
import Foundation
import PushStore
import Testing

@testable import PushService

/// How a claim's rows are split by app and environment: a push's rows come together, so the app is looked
/// up per run of rows, and every row still lands with the app and environment of its own topic.
@Suite("Outbox worker routing of a claim")
struct OutboxRoutingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func senders() -> PushSenders {
        let a = RecordingSender()
        let b = RecordingSender()
        return PushSenders(apps: [
            PushApp(name: "a", topics: ["com.example.a"], production: a, development: a),
            PushApp(name: "b", topics: ["com.example.b"], production: b, development: b),
        ])
    }

    static func row(_ number: Int, topic: String, environment: APNSEnvironment = .production) -> OutboxItem {
        OutboxItem(
            id: "row-\(number)", pushID: "push-\(topic)", token: try! DeviceToken(String(format: "%064x", number)), topic: topic,
            pushType: .alert, payload: Array(#"{"aps":{}}"#.utf8), environment: environment, now: now)
    }

    @Test("interleaved pushes of two apps, two environments and an unserved topic: each row in its own group, claim order kept")
    func interleaved() {
        let topics = [
            ("com.example.a", APNSEnvironment.production), ("com.example.a", .production), ("com.example.a", .development),
            ("com.example.b", .production), ("gone.app", .production), ("com.example.b", .production),
            ("com.example.a", .production), ("com.example.a.voip", .production), ("gone.app", .production),
        ]
        let items = topics.enumerated().map { Self.row($0.offset, topic: $0.element.0, environment: $0.element.1) }
        let (keys, groups, unserved) = OutboxWorker.route(items, senders: Self.senders())
        #expect(
            keys == [
                OutboxWorker.SendGroup(app: 0, environment: .production), OutboxWorker.SendGroup(app: 0, environment: .development),
                OutboxWorker.SendGroup(app: 1, environment: .production),
            ])
        #expect(groups.map { $0.map(\.id) } == [["row-0", "row-1", "row-6", "row-7"], ["row-2"], ["row-3", "row-5"]])
        #expect(unserved.map(\.id) == ["row-4", "row-8"])
    }

    @Test("a claim that all goes to one app and environment is passed on as it is, no row copied")
    func oneGroupUncopied() throws {
        let items = (0..<50).map { Self.row($0, topic: "com.example.b") }
        let (keys, groups, unserved) = OutboxWorker.route(items, senders: Self.senders())
        #expect(keys == [OutboxWorker.SendGroup(app: 1, environment: .production)] && unserved.isEmpty)
        let group = try #require(groups.first)
        #expect(group.withUnsafeBufferPointer { $0.baseAddress } == items.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test("a push's rows that share one payload array hand that same storage to every notification sent")
    func payloadShared() {
        let payload = Array(#"{"aps":{"alert":"shared"}}"#.utf8)
        let items = (0..<20).map { number in
            OutboxItem(
                id: "row-\(number)", pushID: "push", token: try! DeviceToken(String(format: "%064x", number + 1)),
                topic: "com.example.a", pushType: .alert, payload: payload, environment: .production, apnsID: APNSID.random(), now: Self.now)
        }
        let (_, groups, _) = OutboxWorker.route(items, senders: Self.senders())
        let notes = groups[0].map { $0.sentNotification(derivingCollapseID: true) }
        let storage = payload.withUnsafeBufferPointer { $0.baseAddress }
        #expect(notes.allSatisfy { note in note.payload.withUnsafeBufferPointer { $0.baseAddress } == storage })
        #expect(notes.map(\.apnsID) == items.map(\.apnsID?.rawValue))
        #expect(notes.map(\.collapseID) == items.map(\.id))
    }
}

@Suite("Outbox worker acceptance counts")
struct OutboxAcceptanceCountTests {
    @Test("acceptances are counted by app across runs of one app, rejections and failures left out, the last run included")
    func countedPerApp() {
        let accepted = APNSDeliveryResult.accepted(apnsID: APNSID.generate(), uniqueID: nil)
        let rejected = APNSDeliveryResult.rejected(APNSRejection(.badDeviceToken))
        let failed = APNSDeliveryResult.failed(APNSTransportError(.notSent, "test"))
        let rows: [(String, APNSDeliveryResult)] = [
            ("a", accepted), ("a", accepted), ("b", accepted), ("a", rejected), ("a", accepted), ("b", failed), ("b", accepted),
            ("b", accepted),
        ]
        let completions = rows.enumerated().map { OutboxCompletion(id: "row-\($0.offset)", attempt: 1, result: $0.element.1) }
        let sent = rows.map { OutboxWorker.Sent(app: $0.0, item: nil) }
        #expect(OutboxWorker.acceptedByApp(completions, sent) == ["a": 3, "b": 3])
        #expect(OutboxWorker.acceptedByApp([], []).isEmpty)
    }
}
