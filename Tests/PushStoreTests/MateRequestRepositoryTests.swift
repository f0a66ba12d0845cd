import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("MateRequestRepository (every store)")
struct MateRequestRepositoryTests {
    /// Repositories where ana's drop toward bob ("d") matched at t0 + 1 s.
    private func matched(_ kind: StoreKind) async throws -> Repositories {
        let repos = try await kind.make()
        _ = try await repos.drops.report(dropReport("ana", "bob", id: "d"), now: t0)
        _ = try await repos.drops.report(dropReport("bob", "ana"), now: at(1))
        return repos
    }

    /// One answer row to the request's sender.
    private let answerRow: @Sendable (MateRequestRecord) -> [OutboxItem] = { answered in
        [outboxItem("\(answered.id).\(answered.state.rawValue)-row", push: "\(answered.id).\(answered.state.rawValue)")]
    }

    @Test(arguments: StoreKind.allCases)
    func listsByRoleAndDrop(kind: StoreKind) async throws {
        let mates = try await matched(kind).mates
        #expect(try await mates.requests(forUser: "bob", role: .recipient).map(\.id) == ["d.peer"])
        #expect(try await mates.requests(forUser: "bob", role: .sender).map(\.id) == ["d.initiator"])
        #expect(try await mates.requests(forUser: "bob", role: .any).map(\.id) == ["d.initiator", "d.peer"])
        #expect(try await mates.requests(forUser: "cy", role: .any).isEmpty)
        #expect(try await mates.requests(forDrop: "d").map(\.id) == ["d.initiator", "d.peer"])
        #expect(try await mates.request(id: "d.peer")?.state == .pending)
    }

    @Test(arguments: StoreKind.allCases)
    func recipientAnswersOnceAndTheAnswerPushIsStoredWithIt(kind: StoreKind) async throws {
        let repos = try await matched(kind)
        let mates = repos.mates
        await #expect(throws: PushStoreError.notRecipient(requestID: "d.peer", userID: "ana")) {
            _ = try await mates.answer(id: "d.peer", accept: true, by: "ana", at: at(2), pushes: answerRow)
        }
        let accepted = try await mates.answer(id: "d.peer", accept: true, by: "bob", at: at(3), pushes: answerRow)
        #expect(accepted.state == .accepted && accepted.answeredAt == at(3))
        #expect(try await repos.outbox.items(pushID: "d.peer.accepted").count == 1)
        await #expect(throws: PushStoreError.alreadyAnswered(requestID: "d.peer", state: "accepted")) {
            _ = try await mates.answer(id: "d.peer", accept: false, by: "bob", at: at(4), pushes: answerRow)
        }
        #expect(try await repos.outbox.items(pushID: "d.peer.declined").isEmpty, "a refused answer pushes nothing")
        #expect(try await mates.answer(id: "d.initiator", accept: false, by: "ana", at: at(5), pushes: answerRow).state == .declined)
        await #expect(throws: PushStoreError.notFound("mate request nope")) {
            _ = try await mates.answer(id: "nope", accept: true, by: "bob", at: at(5), pushes: answerRow)
        }
        #expect(try await mates.request(id: "d.peer") == accepted)
    }

    @Test(arguments: StoreKind.allCases)
    func anInvalidAnswerPushStoresNoAnswer(kind: StoreKind) async throws {
        let repos = try await matched(kind)
        await #expect(throws: PushStoreError.self) {
            _ = try await repos.mates.answer(id: "d.peer", accept: true, by: "bob", at: at(2)) { _ in
                var row = outboxItem("bad")
                row.topic = ""
                return [row]
            }
        }
        #expect(try await repos.mates.request(id: "d.peer")?.state == .pending)
    }
}
