import PushStore
import PushSync
import SQLiteDriver

extension SQLiteDatabase {
    /// One write of a group commit: `run` applies it on the group's transaction (under a savepoint of its
    /// own when `isolated`) and returns how to answer its caller once the group is committed, or throws what
    /// the write threw; `fail` answers it when the group's transaction fails as a whole.
    struct GroupedWrite: Sendable {
        let run: @Sendable (SQLiteConnection, _ isolated: Bool) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// Why a group commit failed for writes that had succeeded under their savepoints.
    struct GroupCommitLost: Error, CustomStringConvertible {
        var description: String { "SQLite rolled the group's transaction back" }
    }

    /// Runs `body` in a write transaction shared with the other grouped writes that join its group before
    /// it commits (group commit): all of `body`'s writes or, if it throws, none of them, without undoing
    /// the others. Returns once the transaction that holds them has committed, so what it answers is as
    /// durable as with `write`. Writes that arrive together (many concurrent profile-drop reports) share
    /// one `BEGIN IMMEDIATE`/`COMMIT` and one WAL append of each page they change, instead of one each.
    ///
    /// `body` may run twice (see `commitGroup`): it must do nothing but its work on the connection, and
    /// decide only from what it reads there and what it captured.
    ///
    /// Not isolated to the actor: the write joins the waiting group under its lock and waits for the group's
    /// commit, so the actor runs one job per group (the commit) rather than two more per write (one to join,
    /// one to return from the wait), and a caller is answered where it waits, not on the actor.
    nonisolated func writeGrouped<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        do {
            return try await joinGroup(body)
        } catch {
            throw storeError(error)
        }
    }

    private nonisolated func joinGroup<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let write = GroupedWrite(
                run: { connection, isolated in
                    do {
                        let value = isolated ? try connection.savepoint { try body(connection) } : try body(connection)
                        return { continuation.resume(returning: value) }
                    } catch {
                        guard isolated else { throw error }
                        return { continuation.resume(throwing: error) }
                    }
                },
                fail: { continuation.resume(throwing: $0) })
            // The group's first write has its commit scheduled on the actor's thread (straight there: a `Task`
            // would start on the concurrency pool and only then hop); the writes that join before the commit
            // starts share it.
            if groupedWrites.withLock({ $0.add(write) }) { thread.execute { self.assumeIsolated { $0.commitGroup() } } }
        }
    }

    /// Writes waiting for the next group commit (for tests: they join without the actor).
    nonisolated var writesWaiting: Int { groupedWrites.withLock { $0.waiting } }

    /// Applies every waiting grouped write in one transaction, then answers each of their callers.
    ///
    /// The group first runs with no savepoints, which would copy every page a write touches into SQLite's
    /// sub-journal (16 KB each) only to let a write that throws be undone alone. If every write succeeds,
    /// that is the commit. If one throws, the whole transaction is rolled back and the group runs again
    /// from the start, each write under its own savepoint, in the same order: each write then sees what it
    /// saw the first time, and the one that threw is undone alone.
    private func commitGroup() {
        defer { noteWrites() }
        let writes = groupedWrites.withLock { $0.take() }
        let answers: [@Sendable () -> Void]
        do {
            answers = try run(writes, isolated: false)
        } catch {
            groupReplays += 1
            do {
                answers = try run(writes, isolated: true)
            } catch {
                for write in writes { write.fail(error) }
                return
            }
        }
        for answer in answers { answer() }
    }

    /// One transaction over `writes`, in order; throws, having rolled it back, when it cannot commit (or,
    /// not `isolated`, when a write throws).
    private func run(_ writes: [GroupedWrite], isolated: Bool) throws -> [@Sendable () -> Void] {
        try connection.transaction {
            var answers: [@Sendable () -> Void] = []
            answers.reserveCapacity(writes.count)
            for write in writes {
                answers.append(try write.run(connection, isolated))
                guard connection.inTransaction else { throw GroupCommitLost() }
            }
            return answers
        }
    }
}
