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
        #expect(try loaded.card.name == "Ana B")
        #expect(loaded.cardJSON == card("Ana B").encodedJSON())
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

    /// The store keeps a card as the text it is handed, and never reads inside it (the profile-drop
    /// domain encodes and checks cards: `ProfileCard`).
    @Test(arguments: StoreKind.allCases)
    func theCardIsKeptAsItsText(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let text = #"{"dog_name":"Rex","name":"Ana","x":[1,2]}"#
        let stored = try await repos.users.put(id: "ana", cardJSON: text, now: t0)
        #expect(stored.cardJSON == text)
        #expect(try await repos.users.user(id: "ana")?.cardJSON == text)
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
}
