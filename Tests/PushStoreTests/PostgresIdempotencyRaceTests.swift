import Dispatch
import Foundation
import PushSync
import TestSupport
import Testing

@testable import PostgresDriver
@testable import PushStore
@testable import PushStoreSQL

/// `PostgresIdempotencyRepository.begin` from two instances (two pools) on one database: whatever the
/// interleaving, one key is claimed once. The service's in-process lock cannot help here, so these call the
/// repositories directly.
@Suite("PostgreSQL idempotency keys claimed from two instances")
struct PostgresIdempotencyRaceTests {
    static let day: Duration = .seconds(24 * 3600)

    @Test(
        "a claim dropped and made again while another instance waits for the old row's lock is seen: in progress, not a second claim",
        .timeLimit(.minutes(2)))
    func claimMadeAgainWhileWaitingForTheLock() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let first = PostgresIdempotencyRepository(database: try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller))
        let second = PostgresIdempotencyRepository(database: try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller))
        // A third session stands for the first instance's own statements at the moment that matters.
        let session = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        let observer = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        // The scenario depends on the second instance reaching the lock while the session holds it; a round
        // whose begin ends first (with the safe answer) runs again on a new key.
        let rounds = 3
        for round in 1...rounds {
            let key = "k\(round)"
            #expect(try await first.begin(key: key, scope: "s", fingerprint: [1], now: Date(), ttl: Self.day) == .proceed)

            // The session locks the claim's row, holds it until the test lets go, then drops the claim (as
            // `abandon` does after a 5xx) and claims the key again (as the retry does), and commits both at once.
            let locked = AsyncSemaphore(permits: 0)
            let letGo = DispatchSemaphore(value: 0)
            let holding = Task {
                try await session.transaction { db in
                    _ = try db.query("SELECT key FROM idempotency_keys WHERE scope = 's' AND key = '\(key)' FOR UPDATE")
                    locked.release()
                    letGo.wait()
                    try db.run("DELETE FROM idempotency_keys WHERE scope = 's' AND key = '\(key)'")
                    try db.run(
                        "INSERT INTO idempotency_keys (scope, key, fingerprint, status, body, created_at) VALUES ('s', '\(key)', $1, NULL, '\\x', $2)",
                        [.bytes([1]), .integer(Date().storeMillis)])
                }
            }
            try await awaitEvent("the session's lock on the claim row") { await locked.acquireUninterruptibly() }

            // The second instance's retry finds the row (its insert does nothing), then waits for the lock.
            let finishedEarly = PThreadLock<String?>(nil)
            let retry = Task {
                do {
                    let claim = try await second.begin(key: key, scope: "s", fingerprint: [1], now: Date(), ttl: Self.day)
                    finishedEarly.withLock { $0 = "\(claim)" }
                    return claim
                } catch {
                    finishedEarly.withLock { $0 = "\(error)" }
                    throw error
                }
            }
            let waited = PThreadLock(true)
            try await awaitEvent("the second instance waiting for the claim row's lock") {
                while true {
                    // A begin that ends without waiting for the lock is the failure itself: say what it answered.
                    if let answer = finishedEarly.withLock({ $0 }) {
                        let sessions = try await observer.withConnection { db in
                            try db.query(
                                "SELECT state || ' ' || coalesce(wait_event_type, '-') || ' ' || left(query, 80) FROM pg_stat_activity WHERE datname = current_database()"
                            ).map { $0.string(at: 0) }
                        }
                        // The safe answer without the wait did not test the path: the scenario runs again. Any
                        // other answer is the failure itself.
                        if answer == "\(IdempotencyClaim.inProgress)" && round < rounds {
                            waited.withLock { $0 = false }
                            return
                        }
                        Issue.record("the second instance's begin ended while the row was locked, without waiting: \(answer); sessions: \(sessions)")
                        return
                    }
                    let waiting = try await observer.withConnection { db in
                        try db.query(
                            """
                            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                                AND wait_event_type = 'Lock' AND query LIKE 'SELECT fingerprint, status%'
                            """)[0].int64(at: 0)
                    }
                    if waiting > 0 { return }
                    await Task.yield()
                }
            }
            letGo.signal()
            try await holding.value
            // The row it waited for is gone and the new claim was not in its statement's snapshot: it must
            // look again and find the new claim running, not take the key a second time.
            #expect(try await retry.value == .inProgress)
            #expect(try await first.begin(key: key, scope: "s", fingerprint: [1], now: Date(), ttl: Self.day) == .inProgress)
            if waited.withLock({ $0 }) { break }
        }
    }

    @Test("many keys claimed from two instances at once: each key once, the other instance told it is in progress", .timeLimit(.minutes(2)))
    func concurrentClaims() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let instances = [
            PostgresIdempotencyRepository(database: try await PostgresDatabase.open(url: url, poolSize: 4, clock: .caller)),
            PostgresIdempotencyRepository(database: try await PostgresDatabase.open(url: url, poolSize: 4, clock: .caller)),
        ]
        let keys = 200
        let claims = try await withThrowingTaskGroup(of: (Int, IdempotencyClaim).self) { group in
            for index in 0..<keys {
                for instance in instances {
                    group.addTask {
                        (index, try await instance.begin(key: "key-\(index)", scope: "s", fingerprint: [7], now: Date(), ttl: Self.day))
                    }
                }
            }
            return try await group.reduce(into: [Int: [IdempotencyClaim]]()) { $0[$1.0, default: []].append($1.1) }
        }
        let claimedTwice = claims.filter { $0.value.filter { $0 == .proceed }.count != 1 }.keys.sorted()
        #expect(claimedTwice.isEmpty, "keys not claimed exactly once: \(claimedTwice.prefix(10))")
        #expect(claims.values.allSatisfy { $0.count == 2 && $0.contains(.proceed) && $0.contains(.inProgress) })
    }
}
