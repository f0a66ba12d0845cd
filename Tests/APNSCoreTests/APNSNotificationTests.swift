import APNSCore
import Testing

@Suite("APNSNotification headers")
struct APNSNotificationTests {
    static let token = try! DeviceToken(String(repeating: "0a", count: 32))

    @Test("a full notification produces exactly the APNs headers, in order")
    func fullHeaders() {
        let note = APNSNotification(
            token: Self.token, topic: "com.example.app.voip", pushType: .voip, priority: .immediately,
            expiration: .at(epochSeconds: 1_700_000_000), collapseID: "drop-42",
            apnsID: "123E4567-E89B-12D3-A456-426614174000", payload: Array(#"{"aps":{}}"#.utf8))
        let fields = note.headerFields(authorization: "eyJ.jwt.sig")
        #expect(
            fields.map(\.name) == [
                "apns-topic", "apns-push-type", "apns-priority", "apns-expiration",
                "apns-collapse-id", "apns-id", "authorization",
            ])
        #expect(
            fields.map(\.value) == [
                "com.example.app.voip", "voip", "10", "1700000000",
                "drop-42", "123e4567-e89b-12d3-a456-426614174000", "bearer eyJ.jwt.sig",
            ])
        #expect(note.path == "/3/device/" + String(repeating: "0a", count: 32))
    }

    @Test("a minimal notification sends only topic and push type")
    func minimalHeaders() {
        let note = APNSNotification(token: Self.token, topic: "com.example.app", payload: .alert("hi"))
        let fields = note.headerFields(authorization: nil)
        #expect(fields.map(\.name) == ["apns-topic", "apns-push-type"])
        #expect(fields.map(\.value) == ["com.example.app", "alert"])
        #expect(note.payload == Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    @Test("expiration 0 is sent; a ready 'bearer' value is not doubled")
    func immediatelyAndBearer() {
        let note = APNSNotification(
            token: Self.token, topic: "t", expiration: .immediately, payload: [0x7B, 0x7D])
        let fields = note.headerFields(authorization: "bearer abc")
        #expect(fields.map(\.value) == ["t", "alert", "0", "bearer abc"])
    }

    @Test("changing the token updates the path; an invalid apns-id is kept as given")
    func mutation() throws {
        var note = APNSNotification(token: Self.token, topic: "t", apnsID: "NOT-A-UUID", payload: [0x7B, 0x7D])
        #expect(note.apnsID == "NOT-A-UUID")
        let other = try DeviceToken(String(repeating: "b", count: 64))
        note.token = other
        #expect(note.path == "/3/device/" + other.hex)
        note.apnsID = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"
        #expect(note.apnsID == "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
    }
}
