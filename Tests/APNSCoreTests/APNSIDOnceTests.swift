import APNSCore
import Testing

/// An apns-id is checked once, where it comes in: a notification made from a typed id, or from a lowercase
/// text id, takes it as it is; the check's answer is kept for `validate()`.
@Suite("apns-id checked once")
struct APNSIDOnceTests {
    static let token = try! DeviceToken(String(repeating: "0a", count: 32))

    /// The address of a string's UTF-8 bytes (nil for a small string kept inline).
    private static func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test("a lowercase id is kept as given, not copied into a lowercased string")
    func lowercaseTextKept() throws {
        let id = APNSID.generate()
        let note = APNSNotification(token: Self.token, topic: "t", apnsID: id, payload: [0x7B, 0x7D])
        let kept = try #require(note.apnsID)
        #expect(kept == id)
        #expect(Self.storage(kept) != nil && Self.storage(kept) == Self.storage(id))
        #expect(note.validate() == nil)
    }

    @Test("a typed id goes out in lowercase without a copy when it is lowercase already")
    func typedID() throws {
        let id = APNSID.random()
        let note = APNSNotification(token: Self.token, topic: "t", id: id, payload: [0x7B, 0x7D])
        #expect(note.apnsID == id.rawValue)
        #expect(Self.storage(try #require(note.apnsID)) == Self.storage(id.rawValue))
        let upper = try #require(APNSID(rawValue: "2F8D3B55-61A4-4A0B-9D2C-6C9B2A8F0E11"))
        #expect(upper.lowercased == "2f8d3b55-61a4-4a0b-9d2c-6c9b2a8f0e11" && upper.rawValue == "2F8D3B55-61A4-4A0B-9D2C-6C9B2A8F0E11")
        let fromUpper = APNSNotification(token: Self.token, topic: "t", id: upper, payload: [0x7B, 0x7D])
        #expect(fromUpper.apnsID == "2f8d3b55-61a4-4a0b-9d2c-6c9b2a8f0e11" && fromUpper.validate() == nil)
        #expect(APNSNotification(token: Self.token, topic: "t", id: nil, payload: [0x7B, 0x7D]).apnsID == nil)
    }

    @Test("the check's answer follows the id: set to an invalid one, validate reports BadMessageId; set back, it passes")
    func validityFollowsTheID() {
        var note = APNSNotification(token: Self.token, topic: "t", id: APNSID.random(), payload: [0x7B, 0x7D])
        note.apnsID = "not-an-id"
        #expect(note.validate()?.reason == .badMessageId)
        note.apnsID = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"
        #expect(note.apnsID == "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee" && note.validate() == nil)
        note.apnsID = nil
        #expect(note.validate() == nil)
        let invalid = APNSNotification(token: Self.token, topic: "t", apnsID: "123e4567-e89b-12d3-a456-4266554400g0", payload: [0x7B])
        #expect(invalid.validate()?.reason == .badMessageId)
    }

    @Test("ids that differ only in case stay different values, as before")
    func equalityByText() throws {
        let lower = try #require(APNSID(rawValue: "2f8d3b55-61a4-4a0b-9d2c-6c9b2a8f0e11"))
        let upper = try #require(APNSID(rawValue: "2F8D3B55-61A4-4A0B-9D2C-6C9B2A8F0E11"))
        #expect(lower != upper && lower == APNSID(rawValue: lower.rawValue))
        #expect(Set([lower, upper, lower]).count == 2)
    }
}
