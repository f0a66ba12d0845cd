import Dispatch
import Foundation
import PostgresDriver
import ProfileDrop
import PushStore
import Synchronization
import TestSupport
import Testing

@testable import PushStoreSQL

/// The grouped drop operations of one PostgreSQL instance (`PostgresDropGroups`): many in one transaction,
/// decided together on one read and written in one round trip (`PostgresDropBatch`), or each under a
/// savepoint of its own.
@Suite("PostgreSQL drop groups")
struct PostgresDropGroupTests {
    struct Refused: Error {}

    @Test("an operation that throws in a group undoes only its own writes, and its caller alone gets the error")
    func oneFailsAlone() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        // Two connections: one runner, so that the operations that arrive while it runs wait for one group.
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "groups", clock: .database)
        let repositories = PushRepositories(database: database)
        let pairs = 24
        try await DropReportCostTests.addUsers(pairs: pairs, repositories)
        let drops = repositories.drops
        let before = database.dropLocks.commits
        let now = Date()
        // Every pair's drop is written; the odd pairs' operations throw after writing it.
        let answers = await withTaskGroup(of: (Int, (any Error)?).self) { group in
            for pair in 0..<pairs {
                group.addTask {
                    let drop = DropRecord(
                        id: "d\(pair)", initiatorID: "u\(2 * pair)", peerID: "u\(2 * pair + 1)", createdAt: now,
                        expiresAt: now + 600)
                    do {
                        try await drops.withDropTransaction(locking: [drop.initiatorID, drop.peerID], grouped: true) { tx in
                            try tx.insertPending(drop)
                            if pair % 2 == 1 { throw Refused() }
                        }
                        return (pair, nil)
                    } catch {
                        return (pair, error)
                    }
                }
            }
            var answers: [Int: (any Error)?] = [:]
            for await (pair, error) in group { answers[pair] = error }
            return answers
        }
        let commits = database.dropLocks.commits - before
        for pair in 0..<pairs {
            let error = answers[pair] ?? nil
            if pair % 2 == 1 {
                #expect(error is Refused, "pair \(pair): \(String(describing: error))")
            } else {
                #expect(error == nil, "pair \(pair): \(String(describing: error))")
            }
        }
        let pending = Set(try await drops.pending().map(\.id))
        #expect(pending == Set(stride(from: 0, to: pairs, by: 2).map { "d\($0)" }))
        #expect(commits >= 1 && commits < pairs, "commits for \(pairs) operations: \(commits)")
    }

    /// An operation that holds the runner of `database` (pool of one: one runner) while the test queues
    /// what the next group is to hold: its body, run in its batch, says it started and waits for `release`.
    final class Holder: Sendable {
        let release = DispatchSemaphore(value: 0)
        let started: AsyncStream<Void>
        private let startedContinuation: AsyncStream<Void>.Continuation
        let task: Task<Void, any Error>

        init(_ database: PostgresDatabase, users: [String]) {
            (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let (release, signal) = (self.release, startedContinuation)
            task = Task {
                try await database.withDropTransaction(locking: users, grouped: true) { _ in
                    signal.yield()
                    _ = release.wait(timeout: .now() + 60)
                }
            }
        }

        /// Waits until its body runs.
        func waitStarted() async throws {
            let started = self.started
            try await awaitEvent("the holding operation runs") { for await _ in started { return } }
        }
    }

    /// Both phones of `pairs` pairs ("u0" … ) report together, all in the group that follows a holding
    /// operation's; returns each pair's outcomes and what the two groups cost.
    static func reportInOneGroup(
        pairs: Int, first: Int, _ database: PostgresDatabase, _ service: MatchService
    ) async throws -> (outcomes: [Int: [ReportOutcome]], roundTrips: Int, statements: Int, commits: Int) {
        let before = (database.traffic.roundTrips, database.traffic.statements, database.dropLocks.commits)
        let holder = Holder(database, users: ["h\(first)", "h\(first + 1)"])
        try await holder.waitStarted()
        let reports = Task {
            try await withThrowingTaskGroup(of: (Int, ReportOutcome).self) { group in
                for pair in first..<(first + pairs) {
                    for (user, peer) in [(2 * pair, 2 * pair + 1), (2 * pair + 1, 2 * pair)] {
                        group.addTask { (pair, try await DropReportCostTests.report(service, user, peer).outcome) }
                    }
                }
                var outcomes: [Int: [ReportOutcome]] = [:]
                for try await (pair, outcome) in group { outcomes[pair, default: []].append(outcome) }
                return outcomes
            }
        }
        _ = try await poll("\(2 * pairs) reports queued") { database.dropGroups.waitingCount == 2 * pairs ? true : nil }
        holder.release.signal()
        try await holder.task.value
        let outcomes = try await reports.value
        return (
            outcomes, database.traffic.roundTrips - before.0, database.traffic.statements - before.1,
            database.dropLocks.commits - before.2
        )
    }

    @Test("a group of reports costs at most three round trips, and the same statements, however many it holds", arguments: [1, 4, 20])
    func groupCostIsFixed(pairs: Int) async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        // One connection: its runner runs one group at a time, and every statement is prepared once, in the warm-up.
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "batch", clock: .database)
        let repositories = PushRepositories(database: database)
        let service = MatchService(repositories: repositories)
        try await DropReportCostTests.addUsers(pairs: pairs + 1, repositories)
        _ = try await Self.reportInOneGroup(pairs: 1, first: pairs, database, service)
        let (outcomes, roundTrips, statements, commits) = try await Self.reportInOneGroup(pairs: pairs, first: 0, database, service)
        print("\(2 * pairs) reports in one group: \(roundTrips) round trips, \(statements) statements, \(commits) commits (with the holding group's)")
        // One peer at a time: each pair's two reports make a drop and its match (stored matched at once).
        for pair in 0..<pairs {
            #expect(outcomes[pair]?.sorted { $0.rawValue < $1.rawValue } == [.matched, .pending], "pair \(pair): \(outcomes[pair] ?? [])")
        }
        #expect(try await repositories.drops.pending().isEmpty)
        #expect(try await repositories.outbox.depth() == 4 * (pairs + 1), "two devices for each side of each match")
        #expect(commits == 2, "the holding group's and the reports'")
        // The holding group: BEGIN with its lock and its read, then COMMIT. The reports': BEGIN with their
        // locks and their read (their drops and matches, their users with their devices); the webhook
        // subscribers, the drops with their engagements and mate requests, the outbox rows; COMMIT.
        #expect(roundTrips <= 2 + 3, "round trips")
        #expect(statements <= 7 + 10, "statements")
    }

    @Test("a group whose writes meet another instance's change runs again, each report on its own")
    func conflictRunsEachAlone() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .database)
        let other = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "b", clock: .database)
        let repositories = PushRepositories(database: database)
        try await DropReportCostTests.addUsers(pairs: 3, repositories)
        let drops = repositories.drops
        let holder = Holder(database, users: ["h0", "h1"])
        try await holder.waitStarted()
        // u0 → u1, decided in the next group on what it read, waits after the read (the first time only);
        // u4 → u5 shares its group.
        let decided = DispatchSemaphore(value: 0)
        let (read, readContinuation) = AsyncStream<Void>.makeStream()
        let runs = Atomic<Int>(0)
        let first = Task {
            try await drops.withDropTransaction(locking: ["u0", "u1"], grouped: true) { tx in
                if runs.add(1, ordering: .relaxed).newValue == 1 {
                    readContinuation.yield()
                    _ = decided.wait(timeout: .now() + 60)
                }
                // A report's steps: one pending drop per user.
                let state = try tx.reportState(reporter: "u0", peer: "u1", window: .seconds(10), given: Date())
                guard state.pending.isEmpty else { return "busy" }
                try tx.insertPending(
                    DropRecord(id: "d-first", initiatorID: "u0", peerID: "u1", createdAt: state.now, expiresAt: state.now + 600))
                return "pending"
            }
        }
        _ = try await poll("u0's report queued") { database.dropGroups.waitingCount == 1 ? true : nil }
        let second = Task { try await drops.report(dropReport("u4", "u5", id: "d-second"), now: Date()).0 }
        _ = try await poll("u4's report queued") { database.dropGroups.waitingCount == 2 ? true : nil }
        holder.release.signal()
        try await holder.task.value
        try await awaitEvent("u0's report read u1 free") { for await _ in read { return } }
        // Meanwhile another instance engages u1 (another lock: u1 and u2), and commits.
        let engaged = try await PushRepositories(database: other).drops.report(dropReport("u1", "u2", id: "d-other"), now: Date()).0
        guard case .pending = engaged else { throw Refused() }
        decided.signal()
        // The group's writes fail on u1's engagement, all undone; then each report runs on what is stored.
        #expect(try await first.value == "busy")
        guard case .pending(let drop) = try await second.value else { throw Refused() }
        #expect(drop.id == "d-second")
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(database.dropLocks.fallbacks == 1)
        #expect(Set(try await drops.pending().map(\.id)) == ["d-other", "d-second"])
    }

    /// One outcome of an operation in `everyRuleInOneGroup`.
    enum Outcome: Sendable {
        case report(DropReportOutcome, expired: [DropRecord])
        case cancel(DropCancelOutcome)
    }

    @Test("every drop rule holds for operations decided together in one group, each on what those before it wrote")
    func everyRuleInOneGroup() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "rules", clock: .database)
        let drops = PushRepositories(database: database).drops
        let outbox = PushRepositories(database: database).outbox
        // Before the group: c and d pending; e and f matched; j engaged with h; k's drop pending, its window
        // ending at once.
        _ = try await drops.report(dropReport("c", "d", id: "d-c"), now: Date())
        _ = try await drops.report(dropReport("e", "f", id: "d-e"), now: Date())
        _ = try await drops.report(dropReport("f", "e"), now: Date())
        _ = try await drops.report(dropReport("j", "h", id: "d-j"), now: Date())
        _ = try await drops.report(dropReport("k", "l", id: "d-k", window: .milliseconds(1)), now: Date())
        let depth = try await outbox.depth()
        let commits = database.dropLocks.commits
        let holder = Holder(database, users: ["h0", "h1"])
        try await holder.waitStarted()
        // Queued one after the other, so that the group holds them in this order.
        let report: @Sendable (String, String, String) async throws -> Outcome = { reporter, peer, id in
            let (outcome, expired) = try await drops.report(dropReport(reporter, peer, id: id), now: Date())
            return .report(outcome, expired: expired)
        }
        let operations: [@Sendable () async throws -> Outcome] = [
            { try await report("a", "b", "d-a") },
            { try await report("b", "a", "d-b") },
            { .cancel(try await drops.cancel(userID: "c", now: Date(), window: .seconds(10)).0) },
            { try await report("e", "f", "d-e2") },
            { try await report("g", "h", "d-g") },
            { try await report("k", "m", "d-k2") },
            { try await report("d", "c", "d-d") },
        ]
        var tasks: [Task<Outcome, any Error>] = []
        for (index, operation) in operations.enumerated() {
            tasks.append(Task { try await operation() })
            _ = try await poll("operation \(index) queued") { database.dropGroups.waitingCount == index + 1 ? true : nil }
        }
        holder.release.signal()
        try await holder.task.value
        var outcomes: [Outcome] = []
        for task in tasks { outcomes.append(try await task.value) }
        #expect(database.dropLocks.commits - commits == 2, "the holding group's and this one's")
        #expect(database.dropLocks.fallbacks == 0)
        // a, then b: a drop, then its match with both mate requests (the drop stored matched at once).
        guard case .report(.pending(let first), []) = outcomes[0], case .report(.matched(let match, let requests), []) = outcomes[1] else {
            Issue.record("a and b: \(outcomes[0]), \(outcomes[1])")
            return
        }
        #expect(first.id == "d-a" && match.id == "d-a" && match.state == .matched && requests.count == 2)
        // c cancels its drop, freeing d.
        guard case .cancel(.cancelled(let cancelled)) = outcomes[2] else { throw Refused() }
        #expect(cancelled.id == "d-c" && cancelled.state == .cancelled)
        // e repeats its match: the same drop and requests (read on its own, after the group's writes).
        guard case .report(.alreadyMatched(let repeated, let again), []) = outcomes[3] else { throw Refused() }
        #expect(repeated.id == "d-e" && again.count == 2)
        // g meets h engaged with j.
        guard case .report(.busy, []) = outcomes[4] else { throw Refused() }
        // k's drop expired on the way; k is free for m.
        guard case .report(.pending(let renewed), let expired) = outcomes[5] else { throw Refused() }
        #expect(renewed.id == "d-k2" && expired.map(\.id) == ["d-k"] && expired.first?.state == .expired)
        // d, freed by c's cancel in the same group, starts a drop of its own.
        guard case .report(.pending(let fresh), []) = outcomes[6] else { throw Refused() }
        #expect(fresh.id == "d-d" && fresh.initiatorID == "d")
        #expect(Set(try await drops.pending().map(\.id)) == ["d-j", "d-k2", "d-d"])
        let stored = try #require(try await drops.drop(id: "d-a"))
        #expect(stored == match)
        let (closedC, closedK) = (try await drops.drop(id: "d-c"), try await drops.drop(id: "d-k"))
        #expect(closedC?.state == .cancelled && closedK?.state == .expired)
        #expect(try await outbox.depth() == depth + 2, "a row for each of a and b's mate requests")
    }
}
