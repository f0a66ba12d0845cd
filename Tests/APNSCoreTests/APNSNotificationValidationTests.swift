import APNSCore
import Testing

@Suite("APNSNotification local validation")
struct APNSNotificationValidationTests {
    static let token = try! DeviceToken(String(repeating: "c", count: 64))

    /// A JSON body of exactly `size` bytes.
    static func body(size: Int) -> [UInt8] {
        let prefix = Array(#"{"aps":{},"x":""#.utf8)
        return prefix + [UInt8](repeating: UInt8(ascii: "a"), count: size - prefix.count - 2) + Array(#""}"#.utf8)
    }

    static func note(
        topic: String = "com.example.app", pushType: PushType = .alert, priority: Priority? = nil,
        expiration: APNSExpiration = .none, collapseID: String? = nil, apnsID: String? = nil, size: Int = 64
    ) -> APNSNotification {
        APNSNotification(
            token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, payload: size == 0 ? [] : body(size: size))
    }

    @Test(
        "payload size limits at the edges",
        arguments: [
            (PushType.alert, 4096, nil),
            (.alert, 4097, "PayloadTooLarge"),
            (.background, 4097, "PayloadTooLarge"),
            (.voip, 5120, nil),
            (.voip, 5121, "PayloadTooLarge"),
        ] as [(PushType, Int, String?)])
    func sizes(type: PushType, size: Int, reason: String?) throws {
        let topic = type.topic(forBundleID: "com.example.app")
        let rejection = Self.note(topic: topic, pushType: type, size: size).validate()
        #expect(Self.body(size: size).count == size)
        #expect(rejection?.reason.rawValue == reason)
        #expect(rejection?.status == (reason == nil ? nil : 413))
    }

    @Test(
        "each header rule with its Apple status and reason",
        arguments: [
            (note(size: 0), 400, "PayloadEmpty"),
            (note(topic: ""), 400, "MissingTopic"),
            (note(collapseID: String(repeating: "c", count: 64)), nil, nil),
            (note(collapseID: String(repeating: "c", count: 65)), 400, "BadCollapseId"),
            (note(collapseID: String(repeating: "é", count: 32)), nil, nil),
            (note(collapseID: String(repeating: "é", count: 32) + "x"), 400, "BadCollapseId"),
            (note(pushType: .background, priority: .immediately), 400, "BadPriority"),
            (note(pushType: .background, priority: .consideringDevicePower), nil, nil),
            (note(pushType: .alert, priority: .immediately), nil, nil),
            (note(apnsID: "123e4567-e89b-12d3-a456-426614174000"), nil, nil),
            (note(apnsID: "123e4567"), 400, "BadMessageId"),
            (note(expiration: .at(epochSeconds: -5)), 400, "BadExpirationDate"),
            (note(pushType: .voip), 400, "InvalidPushType"),
            (note(topic: ".voip", pushType: .voip), 400, "InvalidPushType"),
            (note(topic: "com.example.app.push-type.controls", pushType: .controls), nil, nil),
            (note(topic: "com.example.app", pushType: .widgets), 400, "InvalidPushType"),
            (note(topic: "com.example.app.voip", pushType: .pushtotalk), 400, "InvalidPushType"),
            (note(topic: "mdm-uid-123", pushType: .mdm), nil, nil),
        ] as [(APNSNotification, Int?, String?)])
    func rules(note: APNSNotification, status: Int?, reason: String?) {
        let rejection = note.validate()
        #expect(rejection?.status == status)
        #expect(rejection?.reason.rawValue == reason)
    }

    @Test("every suffixed push type passes with its suffix and fails without it", arguments: PushType.all)
    func suffixes(type: PushType) {
        let good = Self.note(topic: type.topic(forBundleID: "com.example.app"), pushType: type)
        #expect(good.validate() == nil)
        let bare = Self.note(topic: "com.example.app", pushType: type).validate()
        #expect(bare?.reason == (type.topicSuffix == nil ? nil : .invalidPushType))
    }

    @Test("the rejection echoes the apns-id")
    func echoesID() {
        let rejection = Self.note(topic: "", apnsID: "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE").validate()
        #expect(rejection?.apnsID == "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
    }
}
