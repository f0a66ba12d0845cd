import APNSCore
import APNSMock
import Foundation
import PushTLSTesting
import Testing

@testable import APNS

/// One management request that deserves one rejection, made by the real client (local checks off).
struct ChannelReasonCase: Sendable, CustomTestStringConvertible {
    let reason: APNSRejectionReason
    let call: @Sendable (BroadcastFixture) async -> APNSRejection?
    var testDescription: String { reason.rawValue }
}

let channelReasonCases: [ChannelReasonCase] = [
    ChannelReasonCase(reason: .badPath) { fixture in
        await refusal { try await fixture.channels.createChannel(bundleID: "com.example/other", storagePolicy: .noMessageStored) }
    },
    ChannelReasonCase(reason: .methodNotAllowed) { fixture in
        await refusal { try await fixture.channels.raw("PUT", bundleID + "/channels") }
    },
    ChannelReasonCase(reason: .badMessageId) { fixture in
        await refusal { try await fixture.channels.channels(bundleID: bundleID, requestID: "not-a-uuid") }
    },
    ChannelReasonCase(reason: .topicDisallowed) { fixture in
        await refusal {
            try await fixture.channels.createChannel(bundleID: bundleID + ".push-type.liveactivity", storagePolicy: .noMessageStored)
        }
    },
    ChannelReasonCase(reason: .topicMismatch) { fixture in
        await refusal { try await fixture.channels.channels(bundleID: "com.someone.else") }
    },
    ChannelReasonCase(reason: .featureNotEnabled) { fixture in
        fixture.server.setBroadcastCapability(false, bundleID: bundleID)
        return await refusal { try await fixture.channels.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored) }
    },
    ChannelReasonCase(reason: .badRequestPayload) { fixture in
        await refusal { try await fixture.channels.raw("POST", bundleID + "/channels", body: "{\"message-storage-policy\": 1,") }
    },
    ChannelReasonCase(reason: .badRequestParams) { fixture in
        await refusal {
            try await fixture.channels.raw("POST", bundleID + "/channels", body: #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#)
        }
    },
    ChannelReasonCase(reason: .missingPushType) { fixture in
        await refusal { try await fixture.channels.raw("POST", bundleID + "/channels", body: #"{"message-storage-policy": 1}"#) }
    },
    ChannelReasonCase(reason: .invalidPushType) { fixture in
        await refusal {
            try await fixture.channels.raw("POST", bundleID + "/channels", body: #"{"message-storage-policy": 1, "push-type": "Alert"}"#)
        }
    },
    ChannelReasonCase(reason: .cannotCreateChannelConfig) { fixture in
        fixture.server.channelLimit = 2
        for _ in 0..<2 { _ = await refusal { try await fixture.channels.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored) } }
        return await refusal { try await fixture.channels.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored) }
    },
    ChannelReasonCase(reason: .missingChannelId) { fixture in
        await refusal { try await fixture.channels.raw("DELETE", bundleID + "/channels") }
    },
    ChannelReasonCase(reason: .badChannelId) { fixture in
        await refusal { try await fixture.channels.channel(APNSChannelID("not base64!"), bundleID: bundleID) }
    },
    ChannelReasonCase(reason: .channelNotRegistered) { fixture in
        await refusal { try await fixture.channels.deleteChannel(unknownChannel, bundleID: bundleID) }
    },
]

@Suite("Channel management through the real client against the mock's management listener")
struct APNSChannelManagementTests {
    @Test("create, read, list, delete, then read and broadcast after delete")
    func lifecycle() async throws {
        try await withBroadcast { fixture in
            let requestID = "2288CF3F-70D8-46A6-97D7-DD5D00867127"
            let created = try await fixture.channels.createChannel(bundleID: bundleID, storagePolicy: .mostRecentMessageStored, requestID: requestID)
            #expect(created.requestID == requestID.lowercased())
            #expect(created.channelID.isWellFormed)
            let second = try await fixture.channels.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)
            #expect(second.requestID.map { APNSID.isValid($0) } == true)

            let read = try await fixture.channels.channel(created.channelID, bundleID: bundleID)
            #expect(read.storagePolicy == .mostRecentMessageStored)
            #expect(read.pushType == APNSChannelManagementClient.liveActivityPushType)
            #expect(try await fixture.channels.channel(second.channelID, bundleID: bundleID).storagePolicy == .noMessageStored)
            #expect(try await fixture.channels.channels(bundleID: bundleID).channelIDs == [created.channelID, second.channelID])

            let deleted = try await fixture.channels.deleteChannel(created.channelID, bundleID: bundleID)
            #expect(deleted.channelID == created.channelID)
            #expect(try await fixture.channels.channels(bundleID: bundleID).channelIDs == [second.channelID])
            let afterDelete = await refusal { try await fixture.channels.channel(created.channelID, bundleID: bundleID) }
            #expect(afterDelete?.reason == .channelNotRegistered)
            #expect(afterDelete?.status == 400)
            let broadcastAfterDelete = try await fixture.push.send(broadcast(created.channelID))
            #expect(broadcastAfterDelete.rejection?.reason == .channelNotRegistered)

            // The same client through the protocol a service holds.
            let manager: any APNSChannelManaging = fixture.channels
            #expect(try await manager.channels(bundleID: bundleID, requestID: nil).channelIDs == [second.channelID])

            let log = fixture.server.channelRequests()
            #expect(log.map(\.status) == [201, 201, 200, 200, 200, 204, 200, 400, 200])
            #expect(log.first?.requestID == requestID.lowercased())
            #expect(fixture.server.channels(bundleID: bundleID).map(\.id) == [second.channelID])
        }
    }

    @Test("a request that deserves the reason gets it, with Apple's status and the apns-request-id", arguments: channelReasonCases)
    func provoked(_ reasonCase: ChannelReasonCase) async throws {
        try await withBroadcast(configureClient: { $0.validatesLocally = false }) { fixture in
            let rejection = try #require(await reasonCase.call(fixture))
            #expect(rejection.reason == reasonCase.reason)
            #expect(rejection.status == reasonCase.reason.status)
            #expect(rejection.apnsID.map { APNSID.isValid($0) } == true)
            #expect(fixture.server.channelRequests().last?.reason == reasonCase.reason)
        }
    }

    @Test("local checks refuse before sending: BadPath, TopicDisallowed, BadMessageId, MissingChannelId, BadChannelId")
    func localChecks() async throws {
        try await withBroadcast { fixture in
            let client = fixture.channels
            #expect(await refusal { try await client.channels(bundleID: "") }?.reason == .badPath)
            #expect(await refusal { try await client.channels(bundleID: bundleID + ".voip") }?.reason == .topicDisallowed)
            #expect(await refusal { try await client.channels(bundleID: bundleID, requestID: "x") }?.reason == .badMessageId)
            #expect(await refusal { try await client.channel(APNSChannelID(""), bundleID: bundleID) }?.reason == .missingChannelId)
            #expect(await refusal { try await client.deleteChannel(APNSChannelID("a=b="), bundleID: bundleID) }?.reason == .badChannelId)
            #expect(fixture.server.channelRequests().isEmpty)
        }
    }

    @Test("a .p12 file: the same credentials make a channel on the management listener and broadcast to it")
    func pkcs12() async throws {
        let directory = NSTemporaryDirectory() + "apns-channels-p12-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory, bundleID: bundleID, password: "p12-secret")
        let fixture = try BroadcastFixture(
            configuration: try MockAPNSServer.Configuration(credentialFiles: files),
            credentials: .pkcs12(path: files.clientP12Path, password: files.password))
        let channel = try await fixture.makeChannel()
        #expect(try await fixture.push.send(broadcast(channel)).isAccepted)
        let seen = await fixture.server.waitForBroadcasts(count: 1, channelID: channel, timeout: .seconds(10))
        #expect(seen?.first?.clientCertificateUID == bundleID)
        await fixture.close()
    }

    @Test("a production-only certificate on a development management listener: 403 BadCertificateEnvironment")
    func certificateEnvironment() async throws {
        try await withBroadcast(environments: .production) { fixture in
            let rejection = await refusal { try await fixture.channels.channels(bundleID: bundleID) }
            #expect(rejection?.reason == .badCertificateEnvironment)
            #expect(rejection?.status == 403)
        }
    }

    @Test(
        "fault knobs apply to management requests too, and a refused create makes no channel",
        arguments: [
            (MockFaultRates(tooManyRequests: 1), APNSRejectionReason.tooManyRequests),
            (MockFaultRates(internalServerError: 1), .internalServerError),
            (MockFaultRates(serviceUnavailable: 1), .serviceUnavailable),
        ])
    func faults(rates: MockFaultRates, reason: APNSRejectionReason) async throws {
        try await withBroadcast { fixture in
            fixture.server.updateKnobs { $0.faultRates = rates }
            let rejection = await refusal { try await fixture.channels.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored) }
            #expect(rejection?.reason == reason)
            #expect(fixture.server.channels(bundleID: bundleID).isEmpty)
            fixture.server.updateKnobs { $0.faultRates = .none }
            let listed = try await fixture.channels.channels(bundleID: bundleID)
            #expect(listed.channelIDs.isEmpty)
        }
    }

    @Test("Shutdown and BadCertificate, which no request can deserve from this mock, through the handler")
    func shortcut() async throws {
        for reason in [APNSRejectionReason.shutdown, .badCertificate] {
            try await withBroadcast(configureServer: { $0.handler = MockAPNSHandlers.rejectAll(reason) }) { fixture in
                let rejection = await refusal { try await fixture.channels.channels(bundleID: bundleID) }
                #expect(rejection?.reason == reason)
                #expect(rejection?.status == reason.status)
            }
        }
    }

    @Test("30 concurrent creates on one connection with GOAWAY every 9: 30 channels, no duplicate, list agrees")
    func concurrentCreates() async throws {
        try await withBroadcast(configureServer: { $0.goAwayAfterStreams = 9 }) { fixture in
            let channels = fixture.channels
            let made = try await withThrowingTaskGroup(of: APNSChannelID.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await channels.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored).channelID }
                }
                var ids: [APNSChannelID] = []
                for try await id in group { ids.append(id) }
                return ids
            }
            #expect(Set(made).count == 30)
            let listed = try await channels.channels(bundleID: bundleID).channelIDs
            #expect(Set(listed) == Set(made))
            #expect(listed.count == 30)
        }
    }

    @Test("GOAWAY after every second request: a new connection takes the next ones, nothing fails")
    func goAway() async throws {
        try await withBroadcast(configureServer: { $0.goAwayAfterStreams = 2 }) { fixture in
            var made: [APNSChannelID] = []
            for _ in 0..<5 { made.append(try await fixture.makeChannel()) }
            #expect(try await fixture.channels.channels(bundleID: bundleID).channelIDs == made)
            #expect(Set(fixture.server.channelRequests().map(\.connectionID)).count >= 3)
        }
    }
}
