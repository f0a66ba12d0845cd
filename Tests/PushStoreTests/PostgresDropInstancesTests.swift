import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The drop rules hold when the operations arrive at different instances sharing one PostgreSQL database.
@Suite("PostgreSQL drops shared by instances")
struct PostgresDropInstancesTests {
    /// Three instances on one fresh database.
    static func instances() async throws -> [PushRepositories] {
        let url = try await PostgresTestCluster.shared().createDatabase()
        var sets: [PushRepositories] = []
        for name in ["a", "b", "c"] { sets.append(try await PushRepositories.postgres(url: url, poolSize: 4, instanceID: name, clock: .caller)) }
        return sets
    }

    @Test func manyReportsTowardOneUserHaveOneWinner() async throws {
        let instances = try await Self.instances()
        let reporters = (0..<300).map { "u\($0)" }
        let outcomes = try await withThrowingTaskGroup(of: (String, DropReportOutcome).self) { group in
            for (index, reporter) in reporters.enumerated() {
                let drops = instances[index % instances.count].drops
                group.addTask { (reporter, try await drops.report(dropReport(reporter, "x", id: "d-\(reporter)"), now: t0).0) }
            }
            return try await group.reduce(into: [(String, DropReportOutcome)]()) { $0.append($1) }
        }
        let winners = outcomes.filter { if case .pending = $0.1 { return true } else { return false } }
        #expect(winners.count == 1)
        #expect(outcomes.filter { $0.1 == .busy }.count == reporters.count - 1)
        let winner = try #require(winners.first?.0)
        // x's report, through yet another instance, matches the winner: one mate request each way.
        guard case .matched(let drop, let requests) = try await instances[2].drops.report(dropReport("x", winner), now: at(1)).0 else {
            Issue.record("x's report did not match")
            return
        }
        #expect(drop.id == "d-\(winner)" && requests.count == 2)
        #expect(try await instances[0].mateRequests.requests(forDrop: drop.id).map(\.recipientID) == [winner, "x"])
        #expect(try await instances[1].outbox.depth() == 2)
        #expect(try await instances[0].drops.pending().isEmpty)
    }

    @Test func cancelAndMatchRacingOnTwoInstancesAreDecidedOnce() async throws {
        let instances = try await Self.instances()
        let pairs = (0..<40).map { ("i\($0)", "p\($0)") }
        for (initiator, peer) in pairs { _ = try await instances[0].drops.report(dropReport(initiator, peer, id: "d-\(initiator)"), now: t0) }
        let results = try await withThrowingTaskGroup(of: (String, DropCancelOutcome?, DropReportOutcome?).self) { group in
            for (initiator, peer) in pairs {
                group.addTask { (initiator, try await instances[1].drops.cancel(userID: initiator, now: at(1), window: .seconds(10)).0, nil) }
                group.addTask { (initiator, nil, try await instances[2].drops.report(dropReport(peer, initiator), now: at(1)).0) }
            }
            return try await group.reduce(into: [(String, DropCancelOutcome?, DropReportOutcome?)]()) { $0.append($1) }
        }
        for (initiator, _) in pairs {
            let cancel = try #require(results.first { $0.0 == initiator && $0.1 != nil }?.1)
            let report = try #require(results.first { $0.0 == initiator && $0.2 != nil }?.2)
            let requests = try await instances[0].mateRequests.requests(forDrop: "d-\(initiator)")
            switch (cancel, report) {
            case (.cancelled, .pending):  // cancelled first: the peer's report started a new drop, nothing pushed
                #expect(requests.isEmpty)
            case (.alreadyMatched, .matched):  // matched first: the cancel says so, the pushes stand
                #expect(requests.count == 2)
            default:
                Issue.record("\(initiator): cancel \(cancel), report \(report)")
            }
        }
    }
}
