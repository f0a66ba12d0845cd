import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushStore
import TestSupport
import Testing

@Suite("MatchService answers to mate requests")
struct MatchServiceAnswerTests {
    /// A matched pair u1 (initiator) – u2 and the two requests: [to u1, to u2].
    func matched(_ f: DropFixture) async throws -> [MateRequestRecord] {
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        _ = try await f.report(a, b)
        guard case .matched(_, let requests) = try await f.report(b, a) else { throw MatchError.unknownUser("?") }
        return requests
    }

    @Test("accept and decline are stored and pushed back to the sender's devices")
    func acceptAndDecline() async throws {
        let f = try await DropFixture()
        let requests = try await matched(f)
        let accepted = try await f.service.answer(mateRequestID: requests[1].id, by: "u2", accept: true)
        #expect(accepted.state == .accepted && accepted.answeredAt != nil)
        let declined = try await f.service.answer(mateRequestID: requests[0].id, by: "u1", accept: false)
        #expect(declined.state == .declined)
        #expect(try await f.mateRequests.request(id: requests[1].id)?.state == .accepted)

        let answers = try await f.queuedPushes().filter { $0.category == "MATE_REQUEST_ANSWER" }
        #expect(answers.count == 4)
        let toU1 = answers.filter {
            ($0.target.deviceToken?.hex ?? "").hasPrefix("0000") && $0.json["mate_request_answer"]?["id"]?.stringValue == requests[1].id
        }
        #expect(Set(toU1.compactMap(\.target.deviceToken)) == [DropFixture.token(user: 1, device: 0), DropFixture.token(user: 1, device: 1)])
        #expect(toU1.allSatisfy { $0.json["mate_request_answer"]?["state"]?.stringValue == "accepted" })
        #expect(toU1.allSatisfy { $0.json["mate_request_answer"]?["from"]?["user_id"]?.stringValue == "u2" })
        #expect(toU1.allSatisfy { $0.collapseID == requests[1].dropID && $0.pushType == "alert" })
        let toU2 = answers.filter { $0.json["mate_request_answer"]?["id"]?.stringValue == requests[0].id }
        #expect(Set(toU2.compactMap(\.target.deviceToken)) == [DropFixture.token(user: 2, device: 0), DropFixture.token(user: 2, device: 1)])
        #expect(toU2.allSatisfy { $0.json["mate_request_answer"]?["state"]?.stringValue == "declined" })
        let metrics = await f.service.metrics
        #expect(metrics.accepted == 1 && metrics.declined == 1)
    }

    @Test("a second answer is 'already answered' and pushes nothing more; only the recipient may answer")
    func secondAnswer() async throws {
        let f = try await DropFixture()
        let requests = try await matched(f)
        _ = try await f.service.answer(mateRequestID: requests[1].id, by: "u2", accept: true)
        await #expect(throws: MatchError.alreadyAnswered(requestID: requests[1].id, state: "accepted")) {
            try await f.service.answer(mateRequestID: requests[1].id, by: "u2", accept: true)
        }
        await #expect(throws: MatchError.alreadyAnswered(requestID: requests[1].id, state: "accepted")) {
            try await f.service.answer(mateRequestID: requests[1].id, by: "u2", accept: false)
        }
        await #expect(throws: MatchError.notRecipient(requestID: requests[0].id, userID: "u2")) {
            try await f.service.answer(mateRequestID: requests[0].id, by: "u2", accept: true)
        }
        await #expect(throws: MatchError.mateRequestNotFound("nope")) {
            try await f.service.answer(mateRequestID: "nope", by: "u2", accept: true)
        }
        #expect(try await f.queuedPushes().filter { $0.category == "MATE_REQUEST_ANSWER" }.count == 2)
        #expect(try await f.service.mateRequests(forUser: "u2", role: .recipient).map(\.state) == [.accepted])
    }
}
