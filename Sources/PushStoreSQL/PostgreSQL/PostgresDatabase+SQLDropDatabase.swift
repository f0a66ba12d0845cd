import Foundation
import PostgresDriver
import PushStore
import Synchronization

/// The drop rules' transaction on PostgreSQL, whose tables any number of instances share.
///
/// Each operation runs the drop rules holding one transaction-scoped advisory lock, keyed by the set of
/// users it is about (a report: its pair): two reports of one pair (the two phones of a drop, a repeated
/// report) run one after the other, whichever instance runs them. Operations on sets that only overlap
/// (reports of A→B and C→B, a cancel by A and a report of B→A) are settled by the rows: the primary key of
/// `drop_engagements` backs the rule "at most one pending drop per user" (the second pending drop waits for
/// the first to commit, then fails on the key), and a drop closes only while pending (the second close
/// waits, then finds it closed). Either way the operation that came second runs again (a bounded number of
/// times) on what is now stored, and decides busy, a match or "already matched" from it.
///
/// Grouped operations (reports, cancels) that arrive together share one transaction (`PostgresDropGroups`):
/// it tries all their locks in one statement (those held elsewhere wait for a later group, see `runGroup`);
/// each operation runs under a savepoint of its own (one that fails, or runs again, undoes only its own
/// writes); the group commits once, and only then is each caller answered.
extension PostgresDatabase: SQLDropDatabase {
    /// The advisory-lock class of drop operations (the second key is `hashtext` of their users, sorted and
    /// joined by a space, which no user id contains).
    static let dropLockClass: Int64 = 0x4452  // "DR"

    /// How many times an operation runs at most when a drop it closes was closed, or a user it engages was
    /// engaged, meanwhile by another writer.
    static let dropAttempts = 5

    /// See `DropRepository.withDropTransaction`: one advisory lock for the set `users` (none for an expiry
    /// sweep; a drop closed meanwhile makes the transaction run again); `grouped`, the transaction may be
    /// shared with other grouped operations of this instance.
    func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        let lockKey = users.isEmpty ? nil : Array(Set(users)).sorted().joined(separator: " ")
        let clock = self.clock
        let locks = self.dropLocks
        guard grouped, let lockKey else {
            return try await withConnection { db in
                try Self.runAlone(db, lockKey: lockKey, clock: clock, locks: locks, body)
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            let operation = PostgresDropGroups.Waiting(
                users: Array(Set(users)).sorted(), lockKey: lockKey,
                run: { db, mode in
                    do {
                        let result: T
                        switch mode {
                        case .alone: result = try Self.runAlone(db, lockKey: lockKey, clock: clock, locks: locks, body)
                        case .savepoint: result = try Self.runInGroup(db, clock: clock, locks: locks, body)
                        case .batch(let batch): result = try Self.runInBatch(batch, db, clock: clock, locks: locks, body)
                        }
                        return { continuation.resume(returning: result) }
                    } catch let error as PostgresError where Self.failsGroup(error) {
                        throw error
                    } catch let error as PostgresDropBatch.Unbatchable {
                        throw error
                    } catch {
                        return { continuation.resume(throwing: error) }
                    }
                },
                fail: { continuation.resume(throwing: $0) })
            if dropGroups.add(operation) { Task { await self.runDropGroups() } }
        }
    }

    /// True for an error that undoes a group's whole transaction: a serialization failure or a deadlock
    /// (the group runs again), a connection lost or a server refusing writes.
    private static func failsGroup(_ error: PostgresError) -> Bool {
        error.isRetryable || error.isUnavailable || error.isStorageFull
    }

    /// Runs `body` in a transaction of its own holding the lock of `lockKey` (taken with its first statement),
    /// again if a drop it closes was closed, or a user it engages was engaged, meanwhile.
    private static func runAlone<T>(
        _ db: PostgresConnection, lockKey: String?, clock: PostgresClock, locks: PostgresDropLocks,
        _ body: (inout any DropTransaction) throws -> T
    ) throws -> T {
        var attempt = 1
        while true {
            do {
                let result = try db.transaction { db in
                    db.joinByLookup()
                    return try run(body, PostgresDropTransaction(db: db, clock: clock, lockKey: lockKey, locks: locks))
                }
                locks.recordCommit()
                return result
            } catch PushStoreError.invalidTransition(_, PostgresDropTransaction.notPending, _) where attempt < dropAttempts {
                attempt += 1
            }
        }
    }

    /// Runs `body` in the group's transaction (its lock already held) under a savepoint of its own, which
    /// the next statement sent takes with it: released when it succeeds, rolled back to when it throws
    /// (and run again when a drop it closes was closed, or a user it engages was engaged, meanwhile).
    private static func runInGroup<T>(
        _ db: PostgresConnection, clock: PostgresClock, locks: PostgresDropLocks, _ body: (inout any DropTransaction) throws -> T
    ) throws -> T {
        var attempt = 1
        while true {
            db.executeWithNext("SAVEPOINT drop")
            do {
                let result = try run(body, PostgresDropTransaction(db: db, clock: clock, lockKey: nil, locks: locks, grouped: true))
                db.executeWithNext("RELEASE SAVEPOINT drop")
                return result
            } catch let error as PostgresError where failsGroup(error) {
                throw error
            } catch {
                db.executeWithNext("ROLLBACK TO SAVEPOINT drop")
                db.executeWithNext("RELEASE SAVEPOINT drop")
                guard case PushStoreError.invalidTransition(_, PostgresDropTransaction.notPending, _) = error, attempt < dropAttempts
                else { throw error }
                attempt += 1
            }
        }
    }

    /// Runs `body` on what `batch` read, as the operations before it in the group changed it: its reads
    /// answered from that, its writes staged with the group's (`PostgresDropBatch`), which become the
    /// group's only when it returns. Throws `PostgresDropBatch.Unbatchable` for a step the read does not
    /// answer, and what the rules throw (which stages nothing).
    private static func runInBatch<T>(
        _ batch: PostgresDropBatch, _ db: PostgresConnection, clock: PostgresClock, locks: PostgresDropLocks,
        _ body: (inout any DropTransaction) throws -> T
    ) throws -> T {
        var tx = PostgresDropTransaction(db: db, clock: clock, lockKey: nil, locks: locks, grouped: true)
        tx.staged = batch.staged
        var transaction: any DropTransaction = tx
        let result = try body(&transaction)
        guard let done = transaction as? PostgresDropTransaction, let staged = done.staged else { throw PostgresDropBatch.Unbatchable() }
        batch.staged = staged
        return result
    }

    /// Runs `body` on `tx`, then sends the match it holds, if any (`PostgresDropTransaction.finish`).
    private static func run<T>(_ body: (inout any DropTransaction) throws -> T, _ tx: PostgresDropTransaction) throws -> T {
        var transaction: any DropTransaction = tx
        let result = try body(&transaction)
        if var tx = transaction as? PostgresDropTransaction { try tx.finish() }
        return result
    }

    /// Runs groups of the waiting operations, one after the other, until none waits.
    private func runDropGroups() async {
        let groups = dropGroups
        let locks = dropLocks
        let clock = self.clock
        repeat {
            let taken = TakenGroup()
            do {
                let answers = try await withConnection { db in
                    let (group, startRunner) = groups.take()
                    if startRunner { Task { await self.runDropGroups() } }
                    taken.operations.withLock { $0 = group }
                    return try Self.runGroup(group, db, groups, locks, clock)
                }
                for answer in answers { answer() }
            } catch {
                var group = taken.operations.withLock { $0 }
                // The pool failed before the group was taken: fail the one that would have been.
                if group.isEmpty { group = groups.take().group }
                for operation in group { operation.fail(error) }
            }
        } while groups.runAgain()
    }

    /// The operations of the group a runner took, for failing them when its transaction fails.
    private final class TakenGroup: Sendable {
        let operations = Mutex<[PostgresDropGroups.Waiting]>([])
    }

    /// One transaction for `group`, its operations decided together (`runBatch`); when the batch's writes
    /// find what another transaction changed meanwhile, they are undone with the transaction, and the group
    /// runs again with each operation on its own (`runEach`), so that one that fails undoes only its own writes.
    /// Returns how to answer each caller of the operations that ran.
    private static func runGroup(
        _ group: [PostgresDropGroups.Waiting], _ db: PostgresConnection, _ groups: PostgresDropGroups,
        _ locks: PostgresDropLocks, _ clock: PostgresClock
    ) throws -> [@Sendable () -> Void] {
        // None waited when the runner took its group (another runner took them first).
        guard !group.isEmpty else { return [] }
        do {
            return try runBatch(group, db, groups, locks, clock)
        } catch let error as PostgresError where failsGroup(error) {
            throw error
        } catch {
            locks.recordFallback()
            return try runEach(group, db, groups, locks)
        }
    }

    /// One transaction for `group` in three round trips at most, however many operations it holds: BEGIN,
    /// their locks (tried, never waited for, but for a group of one) and the read of what they are decided on
    /// (`PostgresDropBatch.readStatements`); then each operation's rules on that, and the writes of all in
    /// one round trip (`PostgresDropBatch.write`); then COMMIT (in the writes' round trip when they are
    /// new drops only). The operations whose lock another transaction holds wait for a later group; one
    /// that needs a read the group's does not give (`PostgresDropBatch.Unbatchable`) runs after the writes,
    /// under its own savepoint. A group whose every lock is held elsewhere waits for its first operation's
    /// lock, holding none (see `runEach`), and runs that one under its savepoint.
    private static func runBatch(
        _ group: [PostgresDropGroups.Waiting], _ db: PostgresConnection, _ groups: PostgresDropGroups,
        _ locks: PostgresDropLocks, _ clock: PostgresClock
    ) throws -> [@Sendable () -> Void] {
        let keys = Array(Set(group.map(\.lockKey)))
        let users = Array(Set(group.flatMap(\.users)))
        var pairs: [PostgresDropBatch.Pair] = []
        var people: Set<String> = []
        for operation in group where operation.users.count == 2 {
            let pair = PostgresDropBatch.Pair(operation.users[0], operation.users[1])
            if !pairs.contains(pair) { pairs.append(pair) }
            people.formUnion(operation.users)
        }
        // The locks a group put back for (held elsewhere then) are waited for, in one order, before the
        // others are tried: see `orderedLockSQL`.
        let awaited = Array(Set(group.filter(\.contended).map(\.lockKey)))
        var statements: [(sql: String, parameters: [PostgresValue])] = []
        if group.count == 1 {
            statements.append((waitLockSQL, [.integer(dropLockClass), .text(group[0].lockKey)]))
        } else {
            if !awaited.isEmpty { statements.append((orderedLockSQL, [.integer(dropLockClass), .textArray(awaited)])) }
            statements.append((groupLockSQL, [.integer(dropLockClass), .textArray(keys.filter { !awaited.contains($0) })]))
        }
        let lockStatements = statements.count
        var held: Set<String> = []
        var later: [PostgresDropGroups.Waiting] = []
        let started = ContinuousClock.now
        let answers = try db.transaction { db in
            db.joinByLookup()
            let read = try db.queries(
                statements + PostgresDropBatch.readStatements(users: users, pairs: pairs, people: Array(people), clock: clock))
            held = group.count == 1 ? [group[0].lockKey] : Set(awaited).union(read[lockStatements - 1].map { $0.string(at: 0) })
            if held.isEmpty {
                let waiting = ContinuousClock.now
                try db.query(waitLockSQL, [.integer(dropLockClass), .text(group[0].lockKey)])
                locks.recordLockWait(ContinuousClock.now - waiting)
                held = [group[0].lockKey]
                later = Array(group.dropFirst())
                return [try group[0].run(db, .savepoint)]
            }
            later = group.filter { !held.contains($0.lockKey) }
            let batch = PostgresDropBatch(read: read.dropFirst(lockStatements), users: users, pairs: pairs, people: Array(people), clock: clock)
            var answers: [@Sendable () -> Void] = []
            var alone: [PostgresDropGroups.Waiting] = []
            for operation in group where held.contains(operation.lockKey) {
                do {
                    answers.append(try operation.run(db, .batch(batch)))
                } catch is PostgresDropBatch.Unbatchable {
                    alone.append(operation)
                }
            }
            try batch.write(db, committing: alone.isEmpty)
            for operation in alone { answers.append(try operation.run(db, .savepoint)) }
            return answers
        }
        groups.putBack(later)
        locks.record(held.count)
        locks.recordCommit()
        recordGroup(group, later: later, started: started, locks)
        return answers
    }

    /// true: a report reads its two users with their active devices in its transaction, with what it is
    /// decided on (`PostgresDropBatch.readStatements`), instead of in a round trip of its own before it.
    var readsUsersInDropTransaction: Bool { true }

    /// What this instance's grouped drop operations cost so far, with its pool's round trips and statements.
    public var dropStatistics: PostgresDropStatistics {
        var statistics = dropLocks.statistics
        statistics.roundTrips = traffic.roundTrips
        statistics.statements = traffic.statements
        return statistics
    }

    func enqueue(_ items: [OutboxItem], _ db: PostgresSession) throws {
        try PostgresOutboxRepository.insert(items, clock: clock, db.connection)
    }
}
