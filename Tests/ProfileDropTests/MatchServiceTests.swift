import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushStore
import TestSupport
import Testing

@Suite("MatchService: report, match, cancel, status")
struct MatchServiceTests {
    @Test("A→B is pending and engages both; B→A matches with one mate request per side and one push per device")
    func mutualMatch() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        let first = try await f.report(a, b)
        let pendingDrop = try #require(first.drop)
        #expect(first == .pending(pendingDrop))
        #expect(pendingDrop.initiatorID == a && pendingDrop.peerID == b && pendingDrop.state == .pending)
        #expect(try await f.service.status(userID: b) == pendingDrop)
        #expect(try await f.report(a, b) == .pending(pendingDrop))  // repeat: same drop

        let second = try await f.report(b, a)
        guard case .matched(let drop, let requests) = second else {
            Issue.record("expected match")
            return
        }
        #expect(drop.id == pendingDrop.id && drop.state == .matched)
        #expect(requests.map(\.recipientID) == [a, b] && requests.map(\.senderID) == [b, a])
        #expect(try await f.mateRequests.requests(forDrop: drop.id) == requests)
        #expect(try await f.drops.drop(id: drop.id)?.state == .matched)

        let pushes = try await f.queuedPushes()
        #expect(pushes.count == 4)
        for item in pushes {
            #expect(item.pushType == "alert" && item.priority == 10 && item.collapseID == drop.id)
            #expect(item.category == "MATE_REQUEST")
            let request = try #require(item.json["mate_request"])
            #expect(request["drop_id"]?.stringValue == drop.id)
        }
        // Each side's devices carry the other side's card.
        let toA = pushes.filter { $0.pushID == requests[0].id }
        let toB = pushes.filter { $0.pushID == requests[1].id }
        #expect(Set(toA.compactMap(\.target.deviceToken)) == [DropFixture.token(user: 1, device: 0), DropFixture.token(user: 1, device: 1)])
        #expect(Set(toB.compactMap(\.target.deviceToken)) == [DropFixture.token(user: 2, device: 0), DropFixture.token(user: 2, device: 1)])
        #expect(toA.allSatisfy { $0.json["mate_request"]?["from"]?["user_id"]?.stringValue == b })
        #expect(toA.allSatisfy { $0.json["mate_request"]?["from"]?["card"]?["dog_name"]?.stringValue == "Dog \(b)" })
        #expect(toB.allSatisfy { $0.json["mate_request"]?["from"]?["card"]?["name"]?.stringValue == "Owner \(a)" })
        #expect(toB.allSatisfy { $0.json["mate_request"]?["id"]?.stringValue == requests[1].id })

        let metrics = await f.service.metrics
        #expect(metrics.reports[.pending] == 2 && metrics.reports[.matched] == 1 && metrics.matches == 1)
    }

    @Test("repeated reports of a matched pair, either way, return the same drop and ids and push nothing more")
    func matchedIsIdempotent() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        _ = try await f.report(a, b)
        let matched = try await f.report(b, a)
        f.clock.advance(5)
        #expect(try await f.report(b, a) == matched)
        #expect(try await f.report(a, b) == matched)
        #expect(try await f.service.cancel(userID: a) == .alreadyMatched(try #require(matched.drop)))
        #expect(try await f.queuedPushes().count == 4)
        #expect(await f.service.metrics.matches == 1)
    }

    @Test("after a match both users are free for someone else")
    func freeAfterMatch() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        let c = try await f.addUser(3)
        _ = try await f.report(a, b)
        #expect(try await f.report(c, a) == .busy)
        #expect(try await f.report(c, b) == .busy)
        #expect(try await f.report(b, c) == .busy)
        _ = try await f.report(b, a)
        #expect(try await f.report(c, a).isPending)
    }

    @Test("self-report, bad measurements and unknown users throw and count as invalid; a failed condition changes nothing")
    func rejects() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        await #expect(throws: MatchError.selfReport(userID: a)) { try await f.report(a, a) }
        await #expect(throws: MatchError.unknownUser("ghost")) { try await f.report(a, "ghost") }
        await #expect(throws: MatchError.unknownUser("ghost")) { try await f.report("ghost", a) }
        await #expect(throws: MatchError.invalidMeasurement(.direction)) {
            try await f.service.report(userID: a, peerID: b, distance: 0.1, direction: SIMD3(0, 0, 0))
        }
        await #expect(throws: MatchError.self) {
            try await f.service.report(userID: a, peerID: b, distance: -1)
        }
        let far = try await f.service.report(userID: a, peerID: b, distance: 0.5)
        #expect(far == .conditionNotMet(.tooFar(meters: 0.5, max: 0.3)))
        #expect(try await f.service.status(userID: a) == nil)
        let metrics = await f.service.metrics
        #expect(metrics.reports[.invalid] == 5 && metrics.reports[.conditionNotMet] == 1 && metrics.reportsTotal == 6)
    }

    @Test("cancel frees both users, and the peer's later report starts a fresh drop; nothing is pushed")
    func cancel() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        let drop = try #require(try await f.report(a, b).drop)
        guard case .cancelled(let cancelled) = try await f.service.cancel(userID: b) else {
            Issue.record("expected cancelled")
            return
        }
        #expect(cancelled.id == drop.id && cancelled.state == .cancelled)
        #expect(try await f.service.cancel(userID: a) == .nothingPending)
        #expect(try await f.service.status(userID: a) == nil)
        let again = try await f.report(b, a)
        #expect(again.isPending && again.drop?.id != drop.id)
        #expect(try await f.queuedPushes().isEmpty)
        #expect(await f.service.metrics.cancels == 1)
    }

    @Test("metrics export as Prometheus text")
    func prometheus() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        _ = try await f.report(a, b)
        let text = await f.service.metrics.prometheusText()
        #expect(text.contains("profile_drop_reports_total{result=\"pending\"} 1"))
        #expect(text.contains("profile_drop_reports_total{result=\"condition_not_met\"} 0"))
        #expect(text.contains("profile_drop_matches_total 0"))
    }
}
