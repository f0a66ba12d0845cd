import APNSCore
import APNSMock
import Foundation
import PushHTTP2
import Testing

@testable import APNS

/// One broadcast that deserves one rejection, sent by the real client (local checks off) to a channel
/// made through the management listener.
struct BroadcastReasonCase: Sendable, CustomTestStringConvertible {
    let reason: APNSRejectionReason
    let send: @Sendable (BroadcastFixture, APNSChannelID) async throws -> APNSOutcome
    var testDescription: String { reason.rawValue }
}

/// The broadcast's request with one header replaced (nil: removed), sent as it is.
func sendEdited(
    _ fixture: BroadcastFixture, _ broadcast: APNSBroadcast, method: String = "POST", header: String? = nil, value: String? = nil
) async throws -> APNSOutcome {
    var request = fixture.push.broadcastRequest(broadcast)
    request.method = method
    if let header {
        request.headers.removeAll { $0.name == header }
        if let value { request.headers.append((header, value)) }
    }
    return try await fixture.push.send(request: request)
}

let broadcastReasonCases: [BroadcastReasonCase] = [
    BroadcastReasonCase(reason: .badPath) { fixture, channel in try await fixture.push.send(broadcast(channel, bundle: "com.example/x")) },
    BroadcastReasonCase(reason: .methodNotAllowed) { fixture, channel in try await sendEdited(fixture, broadcast(channel), method: "PUT") },
    BroadcastReasonCase(reason: .badMessageId) { fixture, channel in try await fixture.push.send(broadcast(channel, requestID: "nope")) },
    BroadcastReasonCase(reason: .topicDisallowed) { fixture, channel in
        try await fixture.push.send(broadcast(channel, bundle: bundleID + ".push-type.liveactivity"))
    },
    BroadcastReasonCase(reason: .topicMismatch) { fixture, channel in try await fixture.push.send(broadcast(channel, bundle: "com.someone.else")) },
    BroadcastReasonCase(reason: .featureNotEnabled) { fixture, channel in
        fixture.server.setBroadcastCapability(false, bundleID: bundleID)
        return try await fixture.push.send(broadcast(channel))
    },
    BroadcastReasonCase(reason: .missingChannelId) { fixture, channel in
        try await sendEdited(fixture, broadcast(channel), header: APNSHeader.channelID)
    },
    BroadcastReasonCase(reason: .badChannelId) { fixture, _ in try await fixture.push.send(broadcast(APNSChannelID("%%%"))) },
    BroadcastReasonCase(reason: .channelNotRegistered) { fixture, _ in try await fixture.push.send(broadcast(unknownChannel)) },
    BroadcastReasonCase(reason: .missingPushType) { fixture, channel in
        try await sendEdited(fixture, broadcast(channel), header: APNSHeader.pushType)
    },
    BroadcastReasonCase(reason: .invalidPushType) { fixture, channel in
        var alert = broadcast(channel)
        alert.pushType = .alert
        return try await fixture.push.send(alert)
    },
    BroadcastReasonCase(reason: .badPriority) { fixture, channel in
        try await sendEdited(fixture, broadcast(channel), header: APNSHeader.priority, value: "7")
    },
    BroadcastReasonCase(reason: .badExpirationDate) { fixture, channel in
        // A stored expiration on a No Message Stored channel.
        try await fixture.push.send(broadcast(channel, expiration: .at(Date().addingTimeInterval(3600))))
    },
    BroadcastReasonCase(reason: .payloadEmpty) { fixture, channel in try await fixture.push.send(broadcast(channel, payload: [])) },
    BroadcastReasonCase(reason: .payloadTooLarge) { fixture, channel in
        let padded =
            Array(#"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"x":""#.utf8) + [UInt8](repeating: 97, count: 5100)
            + Array(#""}}}"#.utf8)
        return try await fixture.push.send(broadcast(channel, payload: padded))
    },
    BroadcastReasonCase(reason: .badRequestPayload) { fixture, channel in
        try await fixture.push.send(broadcast(channel, payload: Array("not json".utf8)))
    },
]

@Suite("Broadcast push through the real client against the mock")
struct APNSBroadcastTests {
    @Test("accepted: 200 with the apns-request-id sent and an apns-unique-id, recorded per channel")
    func accepted() async throws {
        try await withBroadcast { fixture in
            let first = try await fixture.makeChannel()
            let second = try await fixture.makeChannel(.mostRecentMessageStored)
            let id = "EABEAE54-14A8-11E5-B60B-1697F925EC7B"
            let outcome = try await fixture.push.send(broadcast(first, requestID: id))
            guard case .accepted(let apnsID, let uniqueID) = outcome else {
                Issue.record("not accepted: \(outcome)")
                return
            }
            #expect(apnsID == id.lowercased())
            #expect(uniqueID.map { APNSID.isValid($0) } == true)
            let stored = try await fixture.push.send(broadcast(second, expiration: .at(Date().addingTimeInterval(3600))))
            #expect(stored.isAccepted)
            #expect(try await fixture.push.send(broadcast(first)).isAccepted)

            let onFirst = fixture.server.broadcasts(channelID: first)
            #expect(onFirst.count == 2)
            #expect(onFirst.allSatisfy { $0.isAccepted && $0.topic == bundleID && $0.payload == liveActivityUpdate })
            #expect(onFirst.first?.apnsID == id.lowercased())
            #expect(onFirst.first?.header(APNSHeader.pushType) == "liveactivity")
            #expect(onFirst.first?.header(APNSHeader.priority) == "10")
            #expect(onFirst.first?.header(APNSHeader.expiration) == "0")
            #expect(onFirst.first?.header(APNSHeader.topic) == nil)
            #expect(onFirst.first?.token == "/4/broadcasts/apps/" + bundleID)
            #expect(fixture.server.broadcasts(channelID: second).count == 1)
            #expect(fixture.server.broadcasts().count == 3)
        }
    }

    @Test("a broadcast that deserves the reason gets it, with Apple's status", arguments: broadcastReasonCases)
    func provoked(_ reasonCase: BroadcastReasonCase) async throws {
        try await withBroadcast(configureClient: { $0.validatesLocally = false }) { fixture in
            let channel = try await fixture.makeChannel()
            let rejection = try #require(try await reasonCase.send(fixture, channel).rejection)
            #expect(rejection.reason == reasonCase.reason)
            #expect(rejection.status == reasonCase.reason.status)
            #expect(rejection.apnsID.map { APNSID.isValid($0) } == true)
            #expect(fixture.server.broadcasts().last?.rejection?.reason == reasonCase.reason)
        }
    }

    @Test(
        "the mock holds broadcasts to Apple's Live Activity payload rules: BadRequestPayload for a start, no event, no timestamp or an update without content-state",
        arguments: [
            #"{"aps":{"timestamp":1685952000,"event":"start","content-state":{},"attributes-type":"A","attributes":{}}}"#,
            #"{"aps":{"timestamp":1685952000,"content-state":{"km":1}}}"#,
            #"{"aps":{"event":"update","content-state":{"km":1}}}"#,
            #"{"aps":{"timestamp":"1685952000","event":"update","content-state":{"km":1}}}"#,
            #"{"aps":{"timestamp":1685952000,"event":"update"}}"#,
            #"{"aps":{"timestamp":1685952000,"event":"end","content-state":"done"}}"#,
        ])
    func payloadRules(_ body: String) async throws {
        try await withBroadcast(configureClient: { $0.validatesLocally = false }) { fixture in
            let channel = try await fixture.makeChannel()
            let outcome = try await fixture.push.send(broadcast(channel, payload: Array(body.utf8)))
            #expect(outcome.rejection?.reason == .badRequestPayload, "\(outcome)")
            // An end without content-state is fine ([A] advises the final state; it does not require it).
            let end = Array(#"{"aps":{"timestamp":1685952000,"event":"end"}}"#.utf8)
            #expect(try await fixture.push.send(broadcast(channel, payload: end)).isAccepted)
        }
    }

    @Test(
        "local checks give the same reasons without a request",
        arguments: [
            (broadcast(APNSChannelID("")), APNSRejectionReason.missingChannelId),
            (broadcast(APNSChannelID("abc")), .badChannelId),
            (broadcast(unknownChannel, bundle: bundleID + ".push-type.liveactivity"), .topicDisallowed),
            (broadcast(unknownChannel, expiration: .none), .badExpirationDate),
            (broadcast(unknownChannel, payload: []), .payloadEmpty),
            (broadcast(unknownChannel, requestID: "x"), .badMessageId),
            (broadcast(unknownChannel, payload: Array(#"{"aps":{"timestamp":1,"event":"start"}}"#.utf8)), .badRequestPayload),
        ])
    func local(_ broadcast: APNSBroadcast, reason: APNSRejectionReason) async throws {
        try await withBroadcast { fixture in
            let outcome = try await fixture.push.send(broadcast)
            #expect(outcome.rejection?.reason == reason)
            #expect(fixture.server.broadcasts().isEmpty)
        }
    }

    @Test(
        "fault rates apply to broadcasts as to device pushes",
        arguments: [
            (MockFaultRates(tooManyRequests: 1), APNSRejectionReason.tooManyRequests),
            (MockFaultRates(internalServerError: 1), .internalServerError),
            (MockFaultRates(serviceUnavailable: 1), .serviceUnavailable),
        ])
    func faults(rates: MockFaultRates, reason: APNSRejectionReason) async throws {
        try await withBroadcast { fixture in
            let channel = try await fixture.makeChannel()
            fixture.server.updateKnobs { $0.faultRates = rates }
            let outcome = try await fixture.push.send(broadcast(channel))
            #expect(outcome.rejection?.reason == reason)
            #expect(outcome.rejection?.status == reason.status)
        }
    }

    @Test("a batch: every broadcast's result once, local rejections included, in one hand-over")
    func batch() async throws {
        try await withBroadcast { fixture in
            let channel = try await fixture.makeChannel()
            var broadcasts = (0..<20).map { _ in broadcast(channel) }
            broadcasts[3] = broadcast(APNSChannelID(""))
            broadcasts[7] = broadcast(unknownChannel)
            let (stream, continuation) = AsyncStream<[APNSBatchResult]>.makeStream()
            await fixture.push.send(broadcasts: broadcasts) { continuation.yield($0) }
            var results: [Int: APNSOutcome] = [:]
            for await chunk in stream {
                for result in chunk { results[result.index] = try result.result.get() }
                if results.count == broadcasts.count { break }
            }
            #expect(results[3]?.rejection?.reason == .missingChannelId)
            #expect(results[7]?.rejection?.reason == .channelNotRegistered)
            #expect(results.filter { $0.value.isAccepted }.count == 18)
            #expect(fixture.server.broadcasts(channelID: channel).count == 18)
        }
    }

    @Test("a production-only certificate against a development push listener: 403 BadCertificateEnvironment")
    func certificateEnvironment() async throws {
        try await withBroadcast(environments: .production) { fixture in
            let channel = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)).id
            let outcome = try await fixture.push.send(broadcast(channel))
            #expect(outcome.rejection?.reason == .badCertificateEnvironment)
            #expect(outcome.rejection?.status == 403)
        }
    }

    @Test("production: apns-unique-id on broadcasts too, not on device pushes")
    func production() async throws {
        try await withBroadcast(serverEnvironment: .production) { fixture in
            let channel = try await fixture.makeChannel()
            guard case .accepted(_, let uniqueID) = try await fixture.push.send(broadcast(channel)) else {
                Issue.record("not accepted")
                return
            }
            #expect(uniqueID != nil)
            guard case .accepted(_, let deviceUniqueID) = try await fixture.push.send(alert()) else {
                Issue.record("device push not accepted")
                return
            }
            #expect(deviceUniqueID == nil)
        }
    }
}
