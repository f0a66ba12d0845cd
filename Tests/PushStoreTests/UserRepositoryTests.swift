import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("UserRepository (both twins)")
struct UserRepositoryTests {
    @Test(arguments: StoreKind.allCases)
    func putThenGetKeepsCreatedAt(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let first = try await repos.users.put(id: "ana.b-1_x", card: card(), now: at(0))
        #expect(first.createdAt == t0 && first.updatedAt == t0)
        let second = try await repos.users.put(id: "ana.b-1_x", card: card("Ana B"), now: at(5))
        #expect(second.createdAt == t0)
        #expect(second.updatedAt == at(5))
        let loaded = try #require(try await repos.users.user(id: "ana.b-1_x"))
        #expect(loaded == second)
        #expect(loaded.card.name == "Ana B")
        #expect(try await repos.users.user(id: "nobody") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func severalUsersInOneRead(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let ana = try await repos.users.put(id: "ana", card: card("Ana"), now: at(0))
        let bob = try await repos.users.put(id: "bob", card: card("Bob"), now: at(1))
        // Users that do not exist are absent; an id asked for twice is read once.
        #expect(try await repos.users.users(ids: ["ana", "nobody", "bob", "ana"]) == ["ana": ana, "bob": bob])
        #expect(try await repos.users.users(ids: []).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func badUserIDAndOversizedCardWriteNothing(kind: StoreKind) async throws {
        let repos = try await kind.make()
        for bad in ["", String(repeating: "a", count: 65), "ana b", "ana/1", "é"] {
            await #expect(throws: PushStoreError.invalidUserID(bad)) {
                _ = try await repos.users.put(id: bad, card: card(), now: t0)
            }
        }
        var big = card()
        big.bio = String(repeating: "x", count: 301)
        await #expect(throws: PushStoreError.invalidField(field: "bio", reason: "longer than 300 characters")) {
            _ = try await repos.users.put(id: "ana", card: big, now: t0)
        }
        #expect(try await repos.users.user(id: "ana") == nil)
        if let rows = try await repos.rowCount("users") { #expect(rows == 0) }
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
}
