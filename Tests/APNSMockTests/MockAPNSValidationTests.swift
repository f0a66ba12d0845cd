import APNSCore
import PushHTTP
import PushHTTP2
import Testing

/// One request that deserves one answer.
struct ValidationCase: Sendable, CustomTestStringConvertible {
    let name: String
    let request: HTTP2Request
    let status: Int
    let reason: String?

    var testDescription: String {
        "\(name) → \(status) \(reason ?? "")"
    }

    static func expect(_ name: String, _ request: HTTP2Request, _ status: Int, _ reason: String? = nil) -> ValidationCase {
        ValidationCase(name: name, request: request, status: status, reason: reason)
    }
}

@Suite("Mock APNs server: Apple's request rules, each reason from a request that deserves it")
struct MockAPNSValidationTests {
    static let cases: [ValidationCase] = {
        var get = apnsRequest()
        get.method = "GET"
        var wrongPrefix = apnsRequest()
        wrongPrefix.path = "/3/devices/" + tokenA
        var oldPath = apnsRequest()
        oldPath.path = "/2/device/" + tokenA
        return [
            .expect("a valid alert", apnsRequest(), 200),
            .expect(
                "a valid background push at priority 5",
                apnsRequest(
                    pushType: "background",
                    extraHeaders: [(APNSHeader.priority, "5")], body: Array(#"{"aps":{"content-available":1}}"#.utf8)), 200),
            .expect("a voip push on the .voip topic", apnsRequest(topic: bundleID + ".voip", pushType: "voip"), 200),
            .expect("a complication push without apns-push-type", apnsRequest(topic: bundleID + ".complication", pushType: nil), 200),
            .expect(
                "expiration 0 and a 64-byte collapse id",
                apnsRequest(extraHeaders: [
                    (APNSHeader.expiration, "0"), (APNSHeader.collapseID, String(repeating: "c", count: 64)),
                ]), 200),
            .expect("an upper-case token", apnsRequest(token: tokenA.uppercased()), 200),
            .expect(
                "a voip payload of 5120 bytes",
                apnsRequest(
                    topic: bundleID + ".voip", pushType: "voip",
                    body: paddedPayload(5120)), 200),
            .expect("GET", get, 405, "MethodNotAllowed"),
            .expect("a path outside /3/device/", wrongPrefix, 404, "BadPath"),
            .expect("the old /2/ path", oldPath, 404, "BadPath"),
            .expect("no token after /3/device/", apnsRequest(token: ""), 400, "MissingDeviceToken"),
            .expect("a short token", apnsRequest(token: "abcd1234"), 400, "BadDeviceToken"),
            .expect("a token with a non-hex digit", apnsRequest(token: String(repeating: "zz", count: 32)), 400, "BadDeviceToken"),
            .expect("a token of odd length", apnsRequest(token: tokenA + "a"), 400, "BadDeviceToken"),
            .expect("apns-id that is not a UUID", apnsRequest(extraHeaders: [(APNSHeader.id, "not-a-uuid")]), 400, "BadMessageId"),
            .expect("apns-topic twice", apnsRequest(extraHeaders: [(APNSHeader.topic, bundleID)]), 400, "DuplicateHeaders"),
            .expect(
                "apns-priority twice", apnsRequest(extraHeaders: [(APNSHeader.priority, "10"), (APNSHeader.priority, "5")]),
                400, "DuplicateHeaders"),
            .expect("no apns-topic with a multi-topic certificate", apnsRequest(topic: nil), 400, "MissingTopic"),
            .expect("another app's topic", apnsRequest(topic: "com.other.app"), 400, "BadTopic"),
            .expect("another app's voip topic", apnsRequest(topic: "com.other.app.voip", pushType: "voip"), 400, "BadTopic"),
            .expect(
                "our live-activity topic the certificate does not list",
                apnsRequest(topic: bundleID + ".push-type.liveactivity", pushType: "liveactivity"), 400, "TopicDisallowed"),
            .expect(
                "our widgets topic the certificate does not list",
                apnsRequest(topic: bundleID + ".push-type.widgets", pushType: "widgets"), 400, "TopicDisallowed"),
            .expect("an unknown apns-push-type", apnsRequest(pushType: "telepathy"), 400, "InvalidPushType"),
            .expect("voip push type on the bare bundle id", apnsRequest(pushType: "voip"), 400, "InvalidPushType"),
            .expect("alert push type on the .voip topic", apnsRequest(topic: bundleID + ".voip", pushType: "alert"), 400, "InvalidPushType"),
            .expect("apns-priority 7", apnsRequest(extraHeaders: [(APNSHeader.priority, "7")]), 400, "BadPriority"),
            .expect("apns-priority high", apnsRequest(extraHeaders: [(APNSHeader.priority, "high")]), 400, "BadPriority"),
            .expect(
                "priority 10 for a background push",
                apnsRequest(
                    pushType: "background",
                    extraHeaders: [(APNSHeader.priority, "10")]), 400, "BadPriority"),
            .expect(
                "apns-expiration that is not an integer", apnsRequest(extraHeaders: [(APNSHeader.expiration, "tomorrow")]),
                400, "BadExpirationDate"),
            .expect(
                "a 65-byte collapse id", apnsRequest(extraHeaders: [(APNSHeader.collapseID, String(repeating: "c", count: 65))]),
                400, "BadCollapseId"),
            .expect("an empty payload", apnsRequest(body: []), 400, "PayloadEmpty"),
            .expect("a 4097-byte alert payload", apnsRequest(body: paddedPayload(4097)), 413, "PayloadTooLarge"),
            .expect(
                "a 5121-byte voip payload", apnsRequest(topic: bundleID + ".voip", pushType: "voip", body: paddedPayload(5121)),
                413, "PayloadTooLarge"),
        ]
    }()

    /// Each case gets its own development server and a universal (multi-topic) certificate.
    @Test("request → status and reason, over TLS with a client certificate", arguments: cases)
    func validation(_ testCase: ValidationCase) async throws {
        let response = try await withFixture { try await respond(try $0.connection(), testCase.request) }
        #expect(response.status == testCase.status)
        let apnsID = try #require(response.header(APNSHeader.id))
        #expect(APNSID.isValid(apnsID) && apnsID == apnsID.lowercased())
        if let reason = testCase.reason {
            #expect(text(response.body) == #"{"reason":"\#(reason)"}"#)
            #expect(APNSRejectionReason(rawValue: reason).status == testCase.status)
        } else {
            #expect(response.body.isEmpty)
            #expect(response.header(APNSHeader.uniqueID).map(APNSID.isValid) == true)
        }
    }

    @Test("the rules apply in the documented order: the earliest broken rule names the reason")
    func order() async throws {
        try await withFixture { fixture in
            let connection = try fixture.connection()
            // Bad token, bad apns-id, bad topic and an empty payload at once: the token rule comes first.
            var request = apnsRequest(token: "xyz", topic: "com.other.app", extraHeaders: [(APNSHeader.id, "nope")], body: [])
            #expect(text(try await respond(connection, request).body) == #"{"reason":"BadDeviceToken"}"#)
            request.path = APNSHeader.devicePathPrefix + tokenA
            #expect(text(try await respond(connection, request).body) == #"{"reason":"BadMessageId"}"#)
            request.headers.removeAll { $0.name == APNSHeader.id }
            #expect(text(try await respond(connection, request).body) == #"{"reason":"BadTopic"}"#)
            request.headers = [(APNSHeader.topic, bundleID)]
            #expect(text(try await respond(connection, request).body) == #"{"reason":"PayloadEmpty"}"#)
        }
    }
}

/// A JSON payload of exactly `size` bytes.
func paddedPayload(_ size: Int) -> [UInt8] {
    let prefix = #"{"aps":{"alert":""#
    let suffix = #""}}"#
    return Array((prefix + String(repeating: "x", count: size - prefix.utf8.count - suffix.utf8.count) + suffix).utf8)
}
