import APNSCore
import Dispatch
import Foundation
import PushSync
import TestSupport
import Testing

@testable import PostgresDriver
@testable import PushStore
@testable import PushStoreSQL

/// Two writes of outcomes of one instance on rows of one range at once (the worker keeps two in flight):
/// the second waits for the range's lock while the first commits, then must count the range down from what
/// the first left, not from what its own statement's snapshot saw.
@Suite("PostgreSQL outcomes of one range written at once")
struct PostgresConcurrentCompleteTests {
    @Test(
        "two completes on one range that meet at its lock both leave the range: all rows settled, the retried one claimed once more",
        .timeLimit(.minutes(2)), arguments: [true, false])
    func twoCompletesOnOneRange(withReceipts: Bool) async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(10))
        let session = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        let observer = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        try await outbox.enqueue((0..<10).map { outboxItem("r\($0)", token: $0) })
        let claimed = try await outbox.claim(limit: 10, now: t0).items
        #expect(claimed.count == 10)
        func completion(_ item: OutboxItem, _ result: APNSDeliveryResult) -> OutboxCompletion {
            withReceipts ? OutboxCompletion(item, result) : done(item.id, result, attempt: item.attempts)
        }
        let first = claimed[0..<5].map { completion($0, .accepted(apnsUniqueID: nil)) }
        let second =
            claimed[5..<9].map { completion($0, .accepted(apnsUniqueID: nil)) }
            + [completion(claimed[9], .retry(status: 503, reason: "ServiceUnavailable"))]

        // A third session holds the range's lock, so that both writes take their snapshots and then wait
        // for it: the one that gets it second sees the range as the first left it only through the lock.
        let locked = AsyncSemaphore(permits: 0)
        let letGo = DispatchSemaphore(value: 0)
        let holding = Task {
            try await session.transaction { db in
                _ = try db.query("SELECT lo FROM outbox_segments FOR UPDATE")
                locked.release()
                letGo.wait()
            }
        }
        try await awaitEvent("the session's lock on the range") { await locked.acquireUninterruptibly() }
        let writes = [first, second].map { batch in Task { try await outbox.complete(batch, now: at(1)) } }
        let sessions = PThreadLock<[String]>([])
        do {
            _ = try await poll("both writes waiting for the range's lock", within: .seconds(30)) {
                let activity = try await observer.withConnection { db in
                    try db.query(
                        """
                        SELECT pid || ' ' || coalesce(wait_event_type, '-') || ' ' || state || ' ' || left(query, 40) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                        """
                    ).map { $0.string(at: 0) }
                }
                sessions.withLock { if $0.last != activity.joined(separator: " | ") { $0.append(activity.joined(separator: " | ")) } }
                return activity.filter { $0.contains(" Lock active WITH v AS MATERIALIZED") }.count == 2 ? true : nil
            }
        } catch {
            Issue.record("sessions: \(sessions.withLock { $0 })")
            throw error
        }
        letGo.signal()
        try await holding.value
        var answers: [String: OutboxState] = [:]
        for write in writes { answers.merge(try await write.value) { old, _ in old } }

        var expected = Dictionary(uniqueKeysWithValues: (0..<9).map { ("r\($0)", OutboxState.accepted) })
        expected["r9"] = .queued
        #expect(answers == expected)
        let (ranges, wrong) = try await database.pool.withConnection { db in
            (
                try db.query("SELECT count(*) FROM outbox_segments")[0].int(at: 0),
                try db.query(PostgresOutboxRepository.miscountedRangesSQL)[0].int(at: 0)
            )
        }
        #expect(ranges == 0 && wrong == 0)
        for id in expected.keys { #expect(try await outbox.item(id: id)?.state == expected[id]) }
        // Only the retried row is claimed again, after every lease ran out, and its outcome is written.
        let again = try await outbox.claim(limit: 10, now: at(3_600)).items
        #expect(again.map(\.id) == ["r9"])
        if let retried = again.first {
            #expect(try await outbox.complete([OutboxCompletion(retried, .accepted(apnsUniqueID: nil))], now: at(3_601)) == ["r9": .accepted])
        }
    }

    @Test(
        "on every store, eight completes at once on rows of one range (a retry among them) settle every row once",
        .timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    func manyCompletesOnOneRange(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue((0..<400).map { outboxItem("m\($0)", token: $0) })
        let claimed = try await outbox.claim(limit: 400, now: t0).items
        #expect(claimed.count == 400)
        let answers = try await withThrowingTaskGroup(of: [String: OutboxState].self) { group in
            for part in 0..<8 {
                let batch = claimed.enumerated().filter { $0.offset % 8 == part }.map { offset, item in
                    OutboxCompletion(item, offset == 7 ? .retry(status: 503, reason: "ServiceUnavailable") : .accepted(apnsUniqueID: nil))
                }
                group.addTask { try await outbox.complete(batch, now: at(1)) }
            }
            return try await group.reduce(into: [String: OutboxState]()) { $0.merge($1) { old, _ in old } }
        }
        #expect(answers.count == 400 && answers["m7"] == .queued && answers.values.filter { $0 == .accepted }.count == 399)
        #expect(try await outbox.pendingCounts() == [.queued: 1, .inFlight: 0])
        #expect(try await outbox.claim(limit: 400, now: at(3_600)).items.map(\.id) == ["m7"])
    }
}
