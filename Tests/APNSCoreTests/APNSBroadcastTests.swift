import APNSCore
import Foundation
import Testing

@Suite("APNSBroadcast, APNSChannelID and the channel management endpoints")
struct APNSBroadcastModelTests {
    static let channel = APNSChannelID("dHN0LXNyY2gtY2hubA==")
    static let body = Array(#"{"aps":{"timestamp":1685952000,"event":"update","content-state":{}}}"#.utf8)

    @Test("path and headers as Apple's broadcast page lists them, defaults priority 10 and expiration 0")
    func request() {
        var broadcast = APNSBroadcast(bundleID: "com.example.MyApp", channelID: Self.channel, payload: Self.body)
        #expect(broadcast.path == "/4/broadcasts/apps/com.example.MyApp")
        #expect(broadcast.headerFields().map(\.name) == ["apns-channel-id", "apns-push-type", "apns-priority", "apns-expiration"])
        #expect(broadcast.headerFields().map(\.value) == ["dHN0LXNyY2gtY2hubA==", "liveactivity", "10", "0"])
        broadcast.requestID = "EABEAE54-14A8-11E5-B60B-1697F925EC7B"
        #expect(broadcast.headerFields().last?.value == "eabeae54-14a8-11e5-b60b-1697f925ec7b")
        #expect(broadcast.validate() == nil)
    }

    @Test(
        "local validation in Apple's order",
        arguments: [
            (APNSBroadcast(bundleID: "", channelID: channel, payload: body), APNSRejectionReason.badPath),
            (APNSBroadcast(bundleID: "a/b", channelID: channel, payload: body), .badPath),
            (APNSBroadcast(bundleID: "com.x.push-type.liveactivity", channelID: channel, payload: body), .topicDisallowed),
            (APNSBroadcast(bundleID: "com.x", channelID: channel, requestID: "nope", payload: body), .badMessageId),
            (APNSBroadcast(bundleID: "com.x", channelID: APNSChannelID(""), payload: body), .missingChannelId),
            (APNSBroadcast(bundleID: "com.x", channelID: APNSChannelID("abc"), payload: body), .badChannelId),
            (APNSBroadcast(bundleID: "com.x", channelID: channel, pushType: .alert, payload: body), .invalidPushType),
            (APNSBroadcast(bundleID: "com.x", channelID: channel, expiration: .none, payload: body), .badExpirationDate),
            (APNSBroadcast(bundleID: "com.x", channelID: channel, expiration: .at(epochSeconds: -5), payload: body), .badExpirationDate),
            (APNSBroadcast(bundleID: "com.x", channelID: channel, payload: [UInt8]()), .payloadEmpty),
            (APNSBroadcast(bundleID: "com.x", channelID: channel, payload: [UInt8](repeating: 32, count: 5121)), .payloadTooLarge),
            (
                APNSBroadcast(bundleID: "com.x", channelID: channel, payload: Array(#"{"aps":{"timestamp":1,"event":"start"}}"#.utf8)),
                .badRequestPayload
            ),
        ])
    func validation(_ broadcast: APNSBroadcast, reason: APNSRejectionReason) {
        #expect(broadcast.validate()?.reason == reason)
        #expect(broadcast.validate()?.status == reason.status)
    }

    @Test("a stored expiration needs a Most Recent Message Stored channel; 5,120 bytes fit")
    func storagePolicy() {
        let later = APNSBroadcast(bundleID: "com.x", channelID: Self.channel, expiration: .at(epochSeconds: 2_000_000_000), payload: Self.body)
        #expect(later.validate(storagePolicy: .noMessageStored)?.reason == .badExpirationDate)
        #expect(later.validate(storagePolicy: .mostRecentMessageStored) == nil)
        #expect(later.validate() == nil)
        let full = APNSBroadcast(
            bundleID: "com.x", channelID: Self.channel, payload: Self.body + [UInt8](repeating: 32, count: 5120 - Self.body.count))
        #expect(full.validate() == nil)
        #expect(APNSMessageStoragePolicy.allCases.map(\.rawValue) == [0, 1])
    }

    @Test(
        "channel ids: padded standard base64 only",
        arguments: [
            ("dHN0LXNyY2gtY2hubA==", true), ("YWJj", true), ("a+/9", true), ("YQ==", true), ("", false), ("abc", false),
            ("a=bc", false), ("YQ===", false), ("ab_-", false), ("YW Jj", false), ("Y===", false),
        ])
    func channelIDs(_ text: String, wellFormed: Bool) {
        #expect(APNSChannelID(text).isWellFormed == wellFormed)
    }

    @Test("management endpoints: Apple's hosts with ports 2195 and 2196, named after their environment")
    func endpoints() {
        #expect(APNSEnvironment.production.channelManagement == .productionChannelManagement)
        #expect(APNSEnvironment.development.with(port: 2197).channelManagement == .developmentChannelManagement)
        #expect(APNSEnvironment.custom(host: "127.0.0.1", port: 1).channelManagement == nil)
        #expect(APNSEnvironment.productionChannelManagement.host == "api-manage-broadcast.push.apple.com")
        #expect(APNSEnvironment.productionChannelManagement.port == 2196)
        #expect(APNSEnvironment.developmentChannelManagement.host == "api-manage-broadcast.sandbox.push.apple.com")
        #expect(APNSEnvironment.developmentChannelManagement.port == 2195)
        #expect(APNSEnvironment.developmentChannelManagement.isDevelopment)
        #expect(APNSEnvironment.developmentChannelManagement.name == "development")
    }
}
