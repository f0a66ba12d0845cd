import Foundation
import PostgresDriver
import PushStore
import TestSupport
import Testing

@testable import PushStoreSQL

/// The grouped drop operations of one PostgreSQL instance (`PostgresDropGroups`): many in one transaction,
/// each under a savepoint of its own.
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
}
