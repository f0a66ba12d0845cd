import APNSCore
import Foundation
import TestSupport
import Testing

@testable import PushStore

@Suite("MateRequestRepository (both twins)")
struct MateRequestRepositoryTests {
    private func seeded(_ kind: StoreKind) async throws -> Repositories {
        let repos = try await kind.make()
        try await repos.drops.insert(DropRecord(id: "d", initiatorID: "ana", peerID: "bob", createdAt: t0, expiresAt: at(10)))
        try await repos.mates.insert(MateRequestRecord(id: "m1", dropID: "d", senderID: "ana", recipientID: "bob", createdAt: at(1)))
        try await repos.mates.insert(MateRequestRecord(id: "m2", dropID: "d", senderID: "bob", recipientID: "ana", createdAt: at(1)))
        return repos
    }

    @Test(arguments: StoreKind.allCases)
    func listsByRoleAndDrop(kind: StoreKind) async throws {
        let mates = try await seeded(kind).mates
        #expect(try await mates.requests(forUser: "bob", role: .recipient).map(\.id) == ["m1"])
        #expect(try await mates.requests(forUser: "bob", role: .sender).map(\.id) == ["m2"])
        #expect(try await mates.requests(forUser: "bob", role: .any).map(\.id) == ["m1", "m2"])
        #expect(try await mates.requests(forUser: "cy", role: .any).isEmpty)
        #expect(try await mates.requests(forDrop: "d").map(\.id) == ["m1", "m2"])
        #expect(try await mates.request(id: "m1")?.state == .pending)
    }

    @Test(arguments: StoreKind.allCases)
    func recipientAnswersOnce(kind: StoreKind) async throws {
        let mates = try await seeded(kind).mates
        await #expect(throws: PushStoreError.notRecipient(requestID: "m1", userID: "ana")) {
            _ = try await mates.answer(id: "m1", accept: true, by: "ana", at: at(2))
        }
        let accepted = try await mates.answer(id: "m1", accept: true, by: "bob", at: at(3))
        #expect(accepted.state == .accepted && accepted.answeredAt == at(3))
        await #expect(throws: PushStoreError.alreadyAnswered(requestID: "m1", state: "accepted")) {
            _ = try await mates.answer(id: "m1", accept: false, by: "bob", at: at(4))
        }
        #expect(try await mates.answer(id: "m2", accept: false, by: "ana", at: at(5)).state == .declined)
        await #expect(throws: PushStoreError.notFound("mate request nope")) {
            _ = try await mates.answer(id: "nope", accept: true, by: "bob", at: at(5))
        }
        #expect(try await mates.request(id: "m1") == accepted)
    }

    @Test(arguments: StoreKind.allCases)
    func requestsNeedAnExistingDropAndANewID(kind: StoreKind) async throws {
        let mates = try await seeded(kind).mates
        await #expect(throws: PushStoreError.notFound("drop ghost")) {
            try await mates.insert(MateRequestRecord(id: "m3", dropID: "ghost", senderID: "a", recipientID: "b", createdAt: t0))
        }
        await #expect(throws: PushStoreError.duplicateID("m1")) {
            try await mates.insert(MateRequestRecord(id: "m1", dropID: "d", senderID: "a", recipientID: "b", createdAt: t0))
        }
        // Both wrong: the missing drop is named, on every store.
        await #expect(throws: PushStoreError.notFound("drop ghost")) {
            try await mates.insert(MateRequestRecord(id: "m1", dropID: "ghost", senderID: "a", recipientID: "b", createdAt: t0))
        }
        #expect(try await mates.requests(forDrop: "d").count == 2)
    }
}
