import APNSCore
import FuzzSupport
import JSON

/// Builds an `APNSPayload` from arbitrary bytes, encodes it and checks what a sender relies on: the body
/// is canonical JSON that parses back to the same value, `aps` holds what was set, and validation lets
/// it through exactly when it fits the push type's size limit.
enum PayloadBuilderCheck {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let payload = makePayload(&input)
        let pushType = [PushType.alert, .background, .voip, .liveactivity, .complication][input.choice(5)]

        let encoded = payload.encoded()
        FuzzCheck.expect(encoded == payload.encoded(), "encoding is not deterministic")
        FuzzCheck.expect(payload.byteCount == encoded.count, "byteCount \(payload.byteCount) for \(encoded.count) bytes")
        let expected = FuzzCheck.serializedForm(of: payload.jsonValue)

        if FuzzCheck.depth(of: expected) > JSONValue.maximumDepth {
            // Deeper than any parser in the service accepts; it must be refused, not misread.
            FuzzCheck.expect((try? JSONValue.parse(encoded)) == nil, "an over-deep payload parsed")
        } else {
            let parsed = FuzzCheck.expectCanonicalJSON(encoded, "the encoded payload")
            FuzzCheck.expect(parsed == expected, "the encoded payload reads back as a different value")
            checkAPS(parsed, of: payload)
        }

        let notification = APNSNotification(
            token: DeviceToken(bytes: [UInt8](repeating: 0xAB, count: 32)),
            topic: pushType.topic(forBundleID: "com.example.app"),
            pushType: pushType, payload: encoded)
        let tooLarge = notification.validate()?.reason == .payloadTooLarge
        FuzzCheck.expect(
            tooLarge == (encoded.count > pushType.maxPayloadBytes),
            "\(encoded.count) bytes for \(pushType): payloadTooLarge is \(tooLarge)")
    }

    /// The `aps` dictionary carries the builder's fields under Apple's key names.
    private static func checkAPS(_ parsed: JSONValue, of payload: APNSPayload) {
        guard let aps = parsed["aps"]?.objectValue else { return FuzzCheck.expect(false, "no aps dictionary") }
        FuzzCheck.expect(aps["badge"] == payload.badge.map { .int(Int64($0)) }, "badge")
        FuzzCheck.expect(aps["category"]?.stringValue == payload.category, "category")
        FuzzCheck.expect(aps["thread-id"]?.stringValue == payload.threadID, "thread-id")
        FuzzCheck.expect((aps["content-available"] == .int(1)) == payload.contentAvailable, "content-available")
        FuzzCheck.expect((aps["mutable-content"] == .int(1)) == payload.mutableContent, "mutable-content")
        if let activity = payload.liveActivity {
            FuzzCheck.expect(aps["timestamp"] == .int(activity.timestamp), "timestamp")
            FuzzCheck.expect(aps["event"]?.stringValue == activity.event.rawValue, "event")
        }
        for key in payload.custom.keys where key != "aps" {
            FuzzCheck.expect(parsed[key] != nil, "custom key \(key) missing")
        }
    }

    private static func makePayload(_ input: inout FuzzInput) -> APNSPayload {
        var payload = APNSPayload()
        switch input.choice(3) {
        case 0: break
        case 1: payload.alert = .text(input.string())
        default:
            payload.alert = .content(
                APNSPayload.AlertContent(
                    title: input.optionalString(), subtitle: input.optionalString(), body: input.optionalString(),
                    launchImage: input.optionalString(), titleLocKey: input.optionalString(),
                    titleLocArgs: input.bool() ? (0..<input.choice(4)).map { _ in input.string() } : nil,
                    subtitleLocKey: input.optionalString(), subtitleLocArgs: nil, locKey: input.optionalString(),
                    locArgs: input.bool() ? (0..<input.choice(4)).map { _ in input.string() } : nil))
        }
        if input.bool() { payload.badge = Int(input.int64()) }
        switch input.choice(3) {
        case 0: break
        case 1: payload.sound = .named(input.string())
        default: payload.sound = .critical(name: input.string(), volume: input.double())
        }
        payload.contentAvailable = input.bool()
        payload.mutableContent = input.bool()
        payload.category = input.optionalString()
        payload.threadID = input.optionalString()
        payload.targetContentID = input.optionalString()
        if input.bool() { payload.interruptionLevel = .init(rawValue: input.string(maxBytes: 40)) }
        if input.bool() { payload.relevanceScore = input.double() }
        payload.filterCriteria = input.optionalString()
        payload.contentChanged = input.bool()
        if input.bool() {
            payload.liveActivity = APNSPayload.LiveActivity(
                timestamp: input.int64(), event: .init(rawValue: input.string(maxBytes: 20)),
                contentState: input.bool() ? input.jsonValue(depth: 3) : nil,
                dismissalDate: input.bool() ? input.int64() : nil, staleDate: input.bool() ? input.int64() : nil,
                attributesType: input.optionalString(), attributes: input.bool() ? input.jsonValue(depth: 3) : nil,
                inputPushToken: input.bool())
        }
        while !input.isAtEnd && payload.custom.count < 16 {
            let key = input.string(maxBytes: 40)
            // Mostly shallow values; now and then a chain deep enough to reach the parser's limit.
            let value = input.choice(16) == 0 ? deepChain(input.choice(70)) : input.jsonValue(depth: 4)
            payload.custom[key] = value
        }
        return payload
    }

    /// An array nested `levels` deep around `1`.
    private static func deepChain(_ levels: Int) -> JSONValue {
        (0..<levels).reduce(JSONValue.int(1)) { inner, _ in .array([inner]) }
    }
}
