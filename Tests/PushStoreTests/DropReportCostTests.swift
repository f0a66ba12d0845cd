import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// What one profile-drop report costs the store, counted: on SQLite one write transaction of a fixed handful
/// of statements (none per user), which reads the users too; on PostgreSQL the advisory locks,
/// round trips and statements per report.
@Suite("Profile-drop report cost")
struct DropReportCostTests {
    static let topic = "com.example.sniffmeet"

    /// Users "u0" … of `pairs` pairs, each with a card and two devices.
    static func addUsers(pairs: Int, _ repositories: PushRepositories) async throws {
        for number in 0..<(2 * pairs) {
            let id = "u\(number)"
            _ = try await repositories.users.put(id: id, card: ProfileCard(name: "Owner \(id)", dogName: "Dog \(id)"), now: Date())
            for device in 0..<2 {
                let hex = String(number * 16 + device, radix: 16)
                _ = try await repositories.devices.register(
                    token: DeviceToken(stringLiteral: String(repeating: "0", count: 64 - hex.count) + hex), topic: topic,
                    userID: id, environment: .development, now: Date())
            }
        }
    }

    static func report(_ service: MatchService, _ user: Int, _ peer: Int) async throws -> DropReport {
        try await service.report(userID: "u\(user)", peerID: "u\(peer)", distance: 0.1, direction: SIMD3(0, 0, -1))
    }

    @Test("SQLite: each report is one write transaction of a fixed few statements, and no read transaction")
    func sqlite() async throws {
        let (database, directory) = try SQLiteGroupCommitTests.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let repositories = PushRepositories(database: database)
        let service = MatchService(repositories: repositories)
        try await Self.addUsers(pairs: 3, repositories)
        for pair in 0..<3 {
            // Pending, then matched: one report at a time, so each read and write is a group of its own.
            for (user, peer, matched) in [(2 * pair, 2 * pair + 1, false), (2 * pair + 1, 2 * pair, true)] {
                let before = (await database.readGroups, await database.groupCommits, try await database.perform { $0.statementsRun })
                let result = try await Self.report(service, user, peer)
                let after = (await database.readGroups, await database.groupCommits, try await database.perform { $0.statementsRun })
                #expect(matched ? result.outcome == .matched : result.outcome == .pending)
                #expect(after.0 - before.0 == 0, "read transactions")
                #expect(after.1 - before.1 == 1, "write transactions")
                // BEGIN IMMEDIATE, the users with their devices, the drops read, then a new drop and its two engagements; or the match, the freed users, the two requests,
                // the webhook subscribers and the outbox's four (the next seq, one overlap check of the ids, an index search each,
                // one insert of the two pushes, one of their range); COMMIT. The engagements and the requests
                // are one row a statement: a two-row statement under a foreign key costs SQLite a statement
                // journal (SQLiteDropPlanTests), more than a second statement does.
                #expect(after.2 - before.2 <= (matched ? 13 : 7), "statements (matched: \(matched))")
            }
        }
    }

    @Test("SQLite: a report naming an unknown user, read in its transaction, throws and stores nothing")
    func sqliteUnknownUser() async throws {
        let (database, directory) = try SQLiteGroupCommitTests.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.unknownUserStoresNothing(PushRepositories(database: database))
    }

    @Test("PostgreSQL: a report naming an unknown user, read in its transaction, throws and stores nothing")
    func postgresUnknownUser() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "users", clock: .database)
        try await Self.unknownUserStoresNothing(PushRepositories(database: database))
    }

    /// A report naming a user the store does not have, either side, throws `unknownUser` and stores nothing;
    /// the same two users then pair as usual.
    static func unknownUserStoresNothing(_ repositories: PushRepositories) async throws {
        #expect(repositories.drops.readsUsersInDropTransaction)
        let service = MatchService(repositories: repositories)
        try await addUsers(pairs: 1, repositories)
        await #expect(throws: MatchError.unknownUser("ghost")) {
            try await service.report(userID: "u0", peerID: "ghost", distance: 0.1, direction: SIMD3(0, 0, -1))
        }
        await #expect(throws: MatchError.unknownUser("ghost")) {
            try await service.report(userID: "ghost", peerID: "u1", distance: 0.1, direction: SIMD3(0, 0, -1))
        }
        #expect(try await repositories.drops.pending().isEmpty)
        #expect(try await report(service, 0, 1).outcome == .pending)
        #expect(try await report(service, 1, 0).outcome == .matched)
    }

    @Test("PostgreSQL: one advisory lock per report; a pending report 2 round trips, a match 3")
    func postgres() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        // One connection: every statement is prepared once, in the warm-up, and what is counted is the reports'.
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "cost", clock: .database)
        let repositories = PushRepositories(database: database)
        let service = MatchService(repositories: repositories)
        let pairs = 20
        try await Self.addUsers(pairs: pairs + 1, repositories)
        #expect(try await Self.report(service, 2 * pairs, 2 * pairs + 1).outcome == .pending)
        #expect(try await Self.report(service, 2 * pairs + 1, 2 * pairs).outcome == .matched)
        // Per outcome: round trips, statements and locks summed over the pairs.
        var cost: [Bool: (roundTrips: Int, statements: Int, locks: Int)] = [false: (0, 0, 0), true: (0, 0, 0)]
        for pair in 0..<pairs {
            for (user, peer, matched) in [(2 * pair, 2 * pair + 1, false), (2 * pair + 1, 2 * pair, true)] {
                let before = (database.traffic.roundTrips, database.traffic.statements, database.dropLocks.count)
                #expect(try await Self.report(service, user, peer).outcome == (matched ? .matched : .pending))
                cost[matched]!.roundTrips += database.traffic.roundTrips - before.0
                cost[matched]!.statements += database.traffic.statements - before.1
                cost[matched]!.locks += database.dropLocks.count - before.2
            }
        }
        for matched in [false, true] {
            let each = cost[matched]!
            print(
                "per \(matched ? "matched" : "pending") report: \(Double(each.locks) / Double(pairs)) advisory locks, "
                    + "\(Double(each.roundTrips) / Double(pairs)) round trips, \(Double(each.statements) / Double(pairs)) statements")
            #expect(each.locks == pairs, "one advisory lock a report (matched: \(matched))")
            // BEGIN (with the two settings of a transaction that joins by lookup), the lock, the drops read and
            // the users with their devices; then a new drop committing with it, or the webhook subscribers,
            // the match, its mate requests and outbox rows in one round trip, then COMMIT.
            #expect(each.roundTrips <= (matched ? 3 : 2) * pairs, "round trips (matched: \(matched))")
            #expect(each.statements <= (matched ? 11 : 8) * pairs, "statements (matched: \(matched))")
        }
    }

    @Test("PostgreSQL: concurrent reports of one instance share transactions, one commit a group")
    func postgresGroups() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 4, instanceID: "groups", clock: .database)
        let repositories = PushRepositories(database: database)
        let service = MatchService(repositories: repositories)
        let pairs = 32
        try await Self.addUsers(pairs: pairs, repositories)
        let before = (database.dropLocks.commits, database.dropLocks.count)
        // Both phones of every pair at once: 64 reports.
        let outcomes = try await withThrowingTaskGroup(of: (Int, ReportOutcome).self) { group in
            for pair in 0..<pairs {
                for (user, peer) in [(2 * pair, 2 * pair + 1), (2 * pair + 1, 2 * pair)] {
                    group.addTask { (pair, try await Self.report(service, user, peer).outcome) }
                }
            }
            var outcomes: [Int: [ReportOutcome]] = [:]
            for try await (pair, outcome) in group { outcomes[pair, default: []].append(outcome) }
            return outcomes
        }
        let commits = database.dropLocks.commits - before.0
        print("\(2 * pairs) concurrent reports: \(commits) commits, \(database.dropLocks.count - before.1) advisory locks")
        // One peer at a time: each pair's two reports make one pending drop, then its match.
        for pair in 0..<pairs {
            #expect(Set(outcomes[pair] ?? []) == [.pending, .matched], "pair \(pair): \(outcomes[pair] ?? [])")
        }
        #expect(try await repositories.drops.pending().isEmpty)
        #expect(commits >= 1 && commits <= pairs, "commits for \(2 * pairs) reports: \(commits)")
        #expect(database.dropLocks.count - before.1 <= 2 * pairs, "at most one advisory lock a report")
    }
}
