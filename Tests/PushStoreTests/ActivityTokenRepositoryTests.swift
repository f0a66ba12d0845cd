import APNSCore
import Foundation
import TestSupport
import Testing

@testable import PushStore

@Suite("ActivityTokenRepository (every store)")
struct ActivityTokenRepositoryTests {
    private func record(_ n: Int, user: String = "ana", kind: ActivityTokenKind, at seconds: Double = 0) -> ActivityTokenRecord {
        ActivityTokenRecord(token: token(n), topic: topic, userID: user, environment: .development, kind: kind, registeredAt: at(seconds))
    }

    @Test(arguments: StoreKind.allCases)
    func pushToStartTokensArePerAttributesType(kind: StoreKind) async throws {
        let repos = try await kind.make()
        try await repos.activityTokens.register(record(1, kind: .pushToStart(attributesType: "WalkAttributes"), at: 1))
        try await repos.activityTokens.register(record(2, kind: .pushToStart(attributesType: "MeetAttributes"), at: 2))
        try await repos.activityTokens.register(record(3, user: "bob", kind: .pushToStart(attributesType: "WalkAttributes"), at: 3))
        try await repos.activityTokens.register(record(4, kind: .update(activityID: "walk-1"), at: 4))
        let walk = try await repos.activityTokens.pushToStartTokens(userID: "ana", attributesType: "WalkAttributes", now: at(5))
        #expect(walk.map(\.token) == [token(1)])
        #expect(walk.first?.attributesType == "WalkAttributes")
        let every = try await repos.activityTokens.pushToStartTokens(userID: "ana", attributesType: nil, now: at(5))
        #expect(every.map(\.token) == [token(1), token(2)])
        // Re-registering moves a token to another type.
        try await repos.activityTokens.register(record(1, kind: .pushToStart(attributesType: "MeetAttributes"), at: 6))
        #expect(try await repos.activityTokens.pushToStartTokens(userID: "ana", attributesType: "WalkAttributes", now: at(7)).isEmpty)
        #expect(try await repos.activityTokens.tokens(userID: "ana").count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func updateTokensRetireWithTheirActivity(kind: StoreKind) async throws {
        let repos = try await kind.make()
        try await repos.activityTokens.register(record(1, kind: .update(activityID: "walk-1"), at: 1))
        try await repos.activityTokens.register(record(2, user: "bob", kind: .update(activityID: "walk-1"), at: 2))
        try await repos.activityTokens.register(record(3, kind: .update(activityID: "walk-2"), at: 3))
        #expect(try await repos.activityTokens.updateTokens(activityID: "walk-1", now: at(4)).map(\.token) == [token(1), token(2)])
        #expect(try await repos.activityTokens.retire(activityID: "walk-1", at: at(100)) == 2)
        // Kept until the dismissal date, gone after it; the other activity is untouched.
        #expect(try await repos.activityTokens.updateTokens(activityID: "walk-1", now: at(99)).count == 2)
        #expect(try await repos.activityTokens.updateTokens(activityID: "walk-1", now: at(100)).isEmpty)
        #expect(try await repos.activityTokens.updateTokens(activityID: "walk-2", now: at(200)).map(\.token) == [token(3)])
        let retired = try await repos.activityTokens.tokens(userID: "ana").first { $0.token == token(1) }
        #expect(retired?.retiredAt == at(100) && retired?.isActive(at: at(101)) == false)
        // A token registered again (a new activity) is active again.
        try await repos.activityTokens.register(record(1, kind: .update(activityID: "walk-3"), at: 300))
        #expect(try await repos.activityTokens.updateTokens(activityID: "walk-3", now: at(301)).map(\.token) == [token(1)])
    }
}
