import Testing

@testable import APNSCore

@Suite("Apple topics extension")
struct APNSTopicsDecodingTests {
    /// SEQUENCE { "com.a", SEQUENCE { "app" }, "com.a.voip", SEQUENCE { "voip" } }, written by hand.
    static let appleLayout: [UInt8] =
        [
            0x30, 0x22,
            0x0C, 0x05,
        ] + Array("com.a".utf8) + [0x30, 0x05, 0x0C, 0x03] + Array("app".utf8)
        + [0x0C, 0x0A] + Array("com.a.voip".utf8) + [0x30, 0x06, 0x0C, 0x04] + Array("voip".utf8)

    @Test("decodes Apple's flat alternating layout")
    func flatLayout() {
        #expect(Self.appleLayout.count == 0x24)
        let entries = APNSCertificateExtensions.decodeTopics(Self.appleLayout)
        #expect(
            entries == [
                APNSCertificateTopic(topic: "com.a", kinds: ["app"]),
                APNSCertificateTopic(topic: "com.a.voip", kinds: ["voip"]),
            ])
    }

    @Test("encoder output equals the hand-written bytes")
    func encoderMatches() {
        let encoded = APNSCertificateExtensions.encodeTopics([
            APNSCertificateTopic(inferringKindOf: "com.a"), APNSCertificateTopic(inferringKindOf: "com.a.voip"),
        ])
        #expect(encoded == Self.appleLayout)
    }

    @Test("accepts an OCTET STRING wrapper and pair-wrapped entries")
    func tolerantLayouts() {
        let wrapped = DER.encode(tag: DER.Tag.octetString, Self.appleLayout)
        #expect(APNSCertificateExtensions.decodeTopics(wrapped).map(\.topic) == ["com.a", "com.a.voip"])
        let pairs = DER.sequence([DER.sequence([DER.utf8String("com.b"), DER.sequence([DER.utf8String("app")])])])
        #expect(APNSCertificateExtensions.decodeTopics(pairs) == [APNSCertificateTopic(topic: "com.b", kinds: ["app"])])
    }

    @Test("malformed input yields no topics", arguments: [[], [0x30], [0x30, 0x05, 0x0C], [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]] as [[UInt8]])
    func malformed(bytes: [UInt8]) {
        #expect(APNSCertificateExtensions.decodeTopics(bytes).isEmpty)
    }

    @Test("long-form lengths round-trip")
    func longLengths() {
        let topics = (0..<40).map { APNSCertificateTopic(inferringKindOf: "com.example.app\($0)") }
        let encoded = APNSCertificateExtensions.encodeTopics(topics)
        #expect(encoded.count > 256)
        #expect(APNSCertificateExtensions.decodeTopics(encoded) == topics)
    }
}
