import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

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

    @Test(arguments: StoreKind.allCases)
    func removingATokenRemovesEachOfItsRegistrationsOnly(kind: StoreKind) async throws {
        let repos = try await kind.make()
        try await repos.activityTokens.register(record(1, kind: .update(activityID: "walk-1"), at: 1))
        var otherTopic = record(1, kind: .pushToStart(attributesType: "WalkAttributes"), at: 2)
        otherTopic.topic = topic + ".other"
        try await repos.activityTokens.register(otherTopic)
        try await repos.activityTokens.register(record(2, kind: .update(activityID: "walk-1"), at: 3))
        #expect(try await repos.activityTokens.remove(token: token(1)) == 2)
        #expect(try await repos.activityTokens.tokens(userID: "ana").map(\.token) == [token(2)])
        #expect(try await repos.activityTokens.remove(token: token(1)) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func priorityBudgetCountsPerActivityOverTheLastHour(kind: StoreKind) async throws {
        let tokens = try await kind.make().activityTokens
        func take(_ activity: String, _ seconds: Double, limit: Int = 2) async throws -> Bool {
            try await tokens.takePriorityBudget(activityID: activity, limit: limit, window: .seconds(3600), now: at(seconds))
        }
        #expect(try await take("walk-1", 0))
        #expect(try await take("walk-1", 10))
        #expect(try await !take("walk-1", 20), "two in the last hour: spent")
        #expect(try await take("walk-2", 20), "each activity has its own budget")
        #expect(try await !take("walk-1", 3599))
        // The take at 0 leaves the window at 3600; the refused ones counted for nothing.
        #expect(try await take("walk-1", 3600))
        #expect(try await !take("walk-1", 3605))
        #expect(try await take("walk-1", 3611))
        #expect(try await !take("walk-3", 0, limit: 0), "a budget of 0 sends every update at 5")
        #expect(try await take("walk-1", 9000, limit: 3))
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentTakesNeverSpendMoreThanTheBudget(kind: StoreKind) async throws {
        let tokens = try await kind.make().activityTokens
        let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<40 {
                group.addTask { try await tokens.takePriorityBudget(activityID: "walk-1", limit: 7, window: .seconds(3600), now: at(Double(n) / 10)) }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(granted == 7)
    }

    @Test func instancesOnOnePostgresDatabaseShareTheBudget() async throws {
        let (a, b) = try await PostgresOutboxInstancesTests.instances()
        let takers = Array(repeating: a.activityTokens, count: 6) + Array(repeating: b.activityTokens, count: 6)
        // Round after round, twelve takes of one activity at once (six per instance, as many as their
        // connections) at the same moment: exactly the budget is granted each time.
        var granted: [Int] = []
        for round in 0..<20 {
            granted.append(
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for tokens in takers {
                        group.addTask {
                            try await tokens.takePriorityBudget(activityID: "walk-\(round)", limit: 3, window: .seconds(3600), now: at(1))
                        }
                    }
                    return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
                })
        }
        #expect(granted == Array(repeating: 3, count: 20))
        #expect(try await !b.activityTokens.takePriorityBudget(activityID: "walk-0", limit: 3, window: .seconds(3600), now: at(2)))
        #expect(try await a.activityTokens.takePriorityBudget(activityID: "walk-0", limit: 3, window: .seconds(3600), now: at(3602)))
    }
}
