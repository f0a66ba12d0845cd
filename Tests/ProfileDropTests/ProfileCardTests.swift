import Foundation
import ProfileDrop
import PushStore
import Testing

/// A profile card's limits and its encoded form belong to the profile-drop domain (`ProfileCard`); the
/// store keeps the encoded text (`UserRecord.cardJSON`).
@Suite("ProfileCard")
struct ProfileCardTests {
    func card() -> ProfileCard {
        ProfileCard(
            name: "Ana", dogName: "Rex", breed: "Jindo", age: 3, bio: "Loves the park.",
            imageURL: "https://example.com/rex.jpg")
    }

    @Test func cardLimitsAndEncodedSize() throws {
        #expect(throws: Never.self) { try card().validate() }
        var empty = card()
        empty.name = ""
        #expect(throws: PushStoreError.invalidField(field: "name", reason: "must not be empty")) { try empty.validate() }
        var oldDog = card()
        oldDog.age = 41
        #expect(throws: PushStoreError.self) { try oldDog.validate() }
        var badURL = card()
        badURL.imageURL = "ftp://x"
        #expect(throws: PushStoreError.self) { try badURL.validate() }
        // Within every character limit (Unicode code points), yet over the byte limit: four bytes each.
        let grin = "😀"
        let wide = ProfileCard(
            name: String(repeating: grin, count: 50), dogName: String(repeating: grin, count: 50),
            breed: String(repeating: grin, count: 50), bio: String(repeating: grin, count: 300),
            imageURL: "https://example.com/" + String(repeating: "x", count: 480))
        #expect {
            try wide.validate()
        } throws: { error in
            guard case PushStoreError.profileTooLarge(let bytes, let limit) = error else { return false }
            return bytes > limit && limit == ProfileCard.maxEncodedBytes
        }
        let json = card().encodedJSON()
        #expect(json.contains("\"dog_name\":\"Rex\"") && json.contains("\"image_url\":\"https://example.com/rex.jpg\""))
        #expect(try ProfileCard.decode(json: json) == card())
    }

    @Test func aStoredCardReadsBackAndAStoredNonCardThrows() throws {
        let user = UserRecord(id: "ana", cardJSON: card().encodedJSON(), createdAt: .distantPast, updatedAt: .distantPast)
        #expect(try user.card == card())
        let broken = UserRecord(id: "ana", cardJSON: #"{"name":"Ana"}"#, createdAt: .distantPast, updatedAt: .distantPast)
        #expect(throws: PushStoreError.self) { try broken.card }
    }
}
