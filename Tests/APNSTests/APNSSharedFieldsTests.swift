import APNSCore
import APNSMock
import Foundation
import PushHTTP2
import TestSupport
import Testing

@testable import APNS

/// The header fields a push's notifications share are made once per run of notifications that agree on
/// them, and every notification still carries its own values on the wire.
@Suite("Header fields shared by a push's notifications")
struct APNSSharedFieldsTests {
    /// Notifications of several "pushes" in one batch, interleaved: each differs from its neighbours in
    /// one shared field (topic, push type, priority, expiration, or presence of priority/expiration), and
    /// some carry a collapse id of their own.
    static func mixedBatch() -> [APNSNotification] {
        let payloadA = APNSPayload.alert("A").encoded()
        let payloadB = APNSPayload.alert("B").encoded()
        var notes: [APNSNotification] = []
        func add(_ count: Int, topic: String, type: PushType, priority: Priority?, expiration: APNSExpiration, collapse: String?, payload: [UInt8]) {
            for index in 0..<count {
                let token = try! DeviceToken(String(format: "%064x", notes.count + 1))
                notes.append(
                    APNSNotification(
                        token: token, topic: topic, pushType: type, priority: priority, expiration: expiration,
                        collapseID: collapse.map { "\($0)-\(index % 2)" }, id: APNSID.random(), payload: payload))
            }
        }
        add(5, topic: bundleID, type: .alert, priority: .immediately, expiration: .none, collapse: nil, payload: payloadA)
        add(4, topic: bundleID, type: .alert, priority: .consideringDevicePower, expiration: .none, collapse: "c", payload: payloadA)
        add(
            3, topic: bundleID + ".voip", type: .voip, priority: .immediately, expiration: .at(epochSeconds: 1_900_000_000), collapse: nil,
            payload: payloadB)
        add(3, topic: bundleID, type: .alert, priority: .immediately, expiration: .at(epochSeconds: 1_900_000_000), collapse: nil, payload: payloadB)
        add(2, topic: bundleID, type: .alert, priority: nil, expiration: .immediately, collapse: nil, payload: payloadA)
        add(2, topic: bundleID, type: .alert, priority: .immediately, expiration: .none, collapse: nil, payload: payloadA)
        return notes
    }

    @Test("a batch of interleaved pushes: every request on the wire carries exactly its own notification's headers and body")
    func mixedPushesOnTheWire() async throws {
        try await withClient { fixture in
            let notes = Self.mixedBatch()
            let results = try await awaitEvent("the batch's \(notes.count) results") { [client = fixture.client] in
                await sendBatch(client, notes)
            }
            #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
            let records = fixture.server.records()
            #expect(records.count == notes.count)
            let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.apnsID, $0) })
            for note in notes {
                let record = try #require(byID[note.apnsID!])
                #expect(record.token == note.token.hex)
                let expected = note.headerFields(authorization: nil)
                let apnsNames = Set(expected.map(\.name))
                let sent = record.headers.filter { $0.name.hasPrefix("apns-") || $0.name == "authorization" }
                #expect(sent.map(\.name) == expected.map(\.name), "headers of \(note.topic) \(note.priority?.rawValue ?? 0)")
                #expect(sent.map(\.value) == expected.map(\.value))
                #expect(Set(sent.map(\.name)) == apnsNames)
                #expect(record.payload == note.payload)
            }
        }
    }

    @Test("with token auth, each request carries the shared fields, its own id and collapse id, then authorization")
    func mixedPushesWithTokenAuth() async throws {
        try await withTokenServer { fixture in
            let client = try fixture.client()
            let notes = Self.mixedBatch()
            let results = try await awaitEvent("the batch's \(notes.count) results") { await sendBatch(client, notes) }
            #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
            let jwt = try #require(client.tokenProvider?.cachedToken?.jwt)
            let byID = Dictionary(uniqueKeysWithValues: fixture.server.records().map { ($0.apnsID, $0) })
            for note in notes {
                let record = try #require(byID[note.apnsID!])
                let expected = note.headerFields(authorization: jwt)
                let sent = record.headers.filter { $0.name.hasPrefix("apns-") || $0.name == "authorization" }
                #expect(sent.map(\.name) == expected.map(\.name))
                #expect(sent.map(\.value) == expected.map(\.value))
            }
        }
    }

    @Test("the shared fields are made once per run; a run's requests share one array and the payload's storage")
    func builtOncePerRun() {
        let notes = Self.mixedBatch()
        var fields = APNSRequestFields(authority: "127.0.0.1")
        let requests = notes.map { fields.request($0) }
        #expect(fields.builds == 6)
        func storage<T>(_ array: [T]) -> UnsafeRawPointer? { array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        for index in 1..<notes.count {
            let sameRun =
                notes[index].topic == notes[index - 1].topic && notes[index].pushType == notes[index - 1].pushType
                && notes[index].priority == notes[index - 1].priority && notes[index].expiration == notes[index - 1].expiration
            #expect((storage(requests[index].sharedHeaders) == storage(requests[index - 1].sharedHeaders)) == sameRun)
            #expect(storage(requests[index].body) == storage(notes[index].payload))
        }
        // Only what differs per notification is its own: collapse id (when set) and apns-id.
        #expect(requests[0].headers.map(\.name) == [APNSHeader.id])
        #expect(requests[5].headers.map(\.name) == [APNSHeader.collapseID, APNSHeader.id])
    }
}
