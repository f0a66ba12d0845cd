import APNSCore
import Foundation
import ProfileDrop
import PushStore
import TestSupport
import Testing

@Suite("MatchService expiry (the clock is moved, never waited on)")
struct MatchServiceExpiryTests {
    @Test("a one-sided drop past its window expires on access, frees both users and sends nothing")
    func lazyExpiry() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        let c = try await f.addUser(3)
        let drop = try #require(try await f.report(a, b).drop)
        f.clock.advance(10.001)
        #expect(try await f.service.status(userID: a) == nil)
        #expect(try await f.drops.drop(id: drop.id)?.state == .expired)
        #expect(try await f.report(c, a).isPending)  // a is free again
        #expect(try await f.report(b, c) == .busy)  // c is now engaged with a, b is free
        #expect(try await f.service.cancel(userID: b) == .nothingPending)
        #expect(try await f.queuedPushes().isEmpty)
        #expect(await f.service.metrics.expiries == 1)
    }

    @Test("the peer's report exactly at the end of the window still matches; just after, it starts over")
    func windowEdge() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        let c = try await f.addUser(3)
        let d = try await f.addUser(4)
        _ = try await f.report(a, b)
        _ = try await f.report(c, d)
        f.clock.advance(10)
        #expect(try await f.report(b, a).isMatched)
        f.clock.advance(0.001)
        let late = try await f.report(d, c)
        #expect(late.isPending && late.drop?.initiatorID == d)
        #expect(try await f.queuedPushes().count == 4)
    }

    @Test("expireDue expires only drops past their window and nothing is pushed")
    func timerExpiry() async throws {
        let f = try await DropFixture()
        let users = try await [1, 2, 3, 4, 5, 6].asyncMap { try await f.addUser($0) }
        let first = try #require(try await f.report(users[0], users[1]).drop)
        let second = try #require(try await f.report(users[2], users[3]).drop)
        f.clock.advance(5)
        let third = try #require(try await f.report(users[4], users[5]).drop)
        f.clock.advance(5.5)
        let expired = try await f.service.expireDue()
        #expect(Set(expired.map(\.id)) == [first.id, second.id])
        #expect(expired.allSatisfy { $0.state == .expired })
        #expect(try await f.service.status(userID: users[4]) == third)
        #expect(try await f.service.status(userID: users[0]) == nil)
        #expect(try await f.service.expireDue().isEmpty)
        #expect(try await f.queuedPushes().isEmpty)
        #expect(await f.service.metrics.expiries == 2)
    }

    @Test("a matched pair's repeats are idempotent for one window after the match, then a new drop can start")
    func matchMemoryExpires() async throws {
        let f = try await DropFixture()
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        _ = try await f.report(a, b)
        let matched = try await f.report(b, a)
        f.clock.advance(10)
        #expect(try await f.report(a, b) == matched)
        f.clock.advance(0.5)
        _ = try await f.service.expireDue()
        #expect(try await f.service.status(userID: a) == nil)
        #expect(try await f.service.cancel(userID: a) == .nothingPending)
        #expect(try await f.report(a, b).isPending)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
