import APNSCore
import Foundation
import Testing

@Suite("PushType")
struct PushTypeTests {
    @Test(
        "topic suffix per push type",
        arguments: [
            (PushType.alert, nil),
            (.background, nil),
            (.mdm, nil),
            (.voip, ".voip"),
            (.complication, ".complication"),
            (.fileprovider, ".pushkit.fileprovider"),
            (.location, ".location-query"),
            (.liveactivity, ".push-type.liveactivity"),
            (.pushtotalk, ".voip-ptt"),
            (.widgets, ".push-type.widgets"),
            (.controls, ".push-type.controls"),
        ] as [(PushType, String?)])
    func suffix(type: PushType, suffix: String?) {
        #expect(type.topicSuffix == suffix)
        #expect(type.topic(forBundleID: "com.example.app") == "com.example.app" + (suffix ?? ""))
        #expect(type.isKnown)
    }

    @Test("all lists the eleven documented types with their header values")
    func all() {
        #expect(
            PushType.all.map(\.rawValue) == [
                "alert", "background", "location", "voip", "complication", "fileprovider",
                "mdm", "liveactivity", "pushtotalk", "widgets", "controls",
            ])
        #expect(Set(PushType.all).count == 11)
    }

    @Test("maximum payload is 5120 for voip and 4096 otherwise")
    func maxPayload() {
        for type in PushType.all {
            #expect(type.maxPayloadBytes == (type == .voip ? 5120 : 4096))
        }
    }

    @Test("an unknown push type passes through")
    func unknown() {
        let type = PushType(rawValue: "hologram")
        #expect(!type.isKnown)
        #expect(type.topicSuffix == nil)
        #expect(type.description == "hologram")
    }
}

@Suite("Priority")
struct PriorityTests {
    @Test("accepts only 10, 5 and 1", arguments: -1...12)
    func parse(value: Int) {
        let priority = Priority(rawValue: value)
        #expect((priority != nil) == [10, 5, 1].contains(value))
        #expect(priority?.rawValue == ([10, 5, 1].contains(value) ? value : nil))
    }

    @Test("named values and header text")
    func named() {
        #expect(Priority.immediately.rawValue == 10)
        #expect(Priority.consideringDevicePower.rawValue == 5)
        #expect(Priority.low.rawValue == 1)
        #expect(Priority(headerValue: "10") == .immediately)
        #expect(Priority.consideringDevicePower.headerValue == "5")
        #expect(Priority(headerValue: "x") == nil)
        #expect(Priority(headerValue: "7") == nil)
    }
}

@Suite("APNSEnvironment")
struct APNSEnvironmentTests {
    @Test("Apple's two environments")
    func apple() {
        #expect(APNSEnvironment.production.host == "api.push.apple.com")
        #expect(APNSEnvironment.production.port == 443)
        #expect(!APNSEnvironment.production.isDevelopment)
        #expect(APNSEnvironment.production.name == "production")
        #expect(APNSEnvironment.development.host == "api.sandbox.push.apple.com")
        #expect(APNSEnvironment.development.port == 443)
        #expect(APNSEnvironment.development.isDevelopment)
        #expect(APNSEnvironment.development.name == "development")
    }

    @Test("custom hosts, and Apple's hosts given as custom")
    func custom() {
        let mock = APNSEnvironment.custom(host: "127.0.0.1", port: 8443)
        #expect(mock.name == "custom")
        #expect(mock.host == "127.0.0.1" && mock.port == 8443)
        #expect(!mock.isDevelopment)
        #expect(APNSEnvironment.custom(host: "localhost", port: 1, isDevelopment: true).isDevelopment)
        #expect(APNSEnvironment.custom(host: "api.sandbox.push.apple.com", port: 443) == .development)
        #expect(APNSEnvironment.production.with(port: 2197) == .custom(host: "api.push.apple.com", port: 2197))
    }
}

@Suite("APNSExpiration and APNSID")
struct ExpirationAndIDTests {
    @Test("expiration header values")
    func expiration() {
        #expect(APNSExpiration.immediately.headerValue == "0")
        #expect(APNSExpiration.none.headerValue == nil)
        #expect(APNSExpiration.at(epochSeconds: 1_700_000_000).headerValue == "1700000000")
        #expect(APNSExpiration.at(Date(timeIntervalSince1970: 1_700_000_000.9)).epochSeconds == 1_700_000_000)
        #expect(APNSExpiration.at(Date(timeIntervalSince1970: 0)) == .immediately)
    }

    @Test("generated ids are valid lowercase v4 UUIDs and distinct")
    func generate() {
        let ids = (0..<100).map { _ in APNSID.generate() }
        #expect(Set(ids).count == 100)
        for id in ids {
            #expect(APNSID.isValid(id))
            #expect(id == id.lowercased())
            #expect(Array(id.utf8)[14] == UInt8(ascii: "4"))
        }
    }

    @Test(
        "id validation",
        arguments: [
            ("123e4567-e89b-12d3-a456-426614174000", true),
            ("123E4567-E89B-12D3-A456-426614174000", true),
            ("123e4567e89b12d3a456426614174000", false),
            ("123e4567-e89b-12d3-a456-42661417400", false),
            ("123e4567-e89b-12d3-a456-4266141740000", false),
            ("123e4567-e89b-12d3-a456_426614174000", false),
            ("g23e4567-e89b-12d3-a456-426614174000", false),
            ("123e4567-e89b-12d3-a456-42661417400-", false),
            ("123e4567-e89b-12d3-a456-4266141740\u{0}0", false),
            ("123e4567-e89b-12d3-a456-42661417400:", false),
            ("123e4567-e89b-12d3-a456-42661417400\u{10}", false),
            ("123e4567-e89b-12d3-a456-42661417400\u{01}", false),
            ("123e4567-e89b-12d3-a456-42661417400G", false),
            ("", false),
        ])
    func valid(text: String, expected: Bool) {
        #expect(APNSID.isValid(text) == expected)
    }
}
