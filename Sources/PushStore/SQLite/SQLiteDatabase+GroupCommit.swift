extension SQLiteDatabase {
    /// One write of a group commit: `run` applies it under a savepoint of the group's transaction and
    /// returns how to answer its caller once the group is committed; `fail` answers it when the group's
    /// transaction fails as a whole.
    struct GroupedWrite {
        let run: (SQLiteConnection) -> () -> Void
        let fail: (any Error) -> Void
    }

    /// Why a group commit failed for writes that had succeeded under their savepoints.
    struct GroupCommitLost: Error, CustomStringConvertible {
        var description: String { "SQLite rolled the group's transaction back" }
    }

    /// Runs `body` in a write transaction shared with the other grouped writes that reach the actor before
    /// it commits (group commit): all of `body`'s writes or, if it throws, none of them, without undoing
    /// the others. Returns once the transaction that holds them has committed, so what it answers is as
    /// durable as with `write`. Writes that arrive together (many concurrent profile-drop reports) share
    /// one `BEGIN IMMEDIATE`/`COMMIT` and one WAL append of each page they change, instead of one each.
    func writeGrouped<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            groupedWrites.append(
                GroupedWrite(
                    run: { connection in
                        do {
                            let value = try connection.savepoint { try body(connection) }
                            return { continuation.resume(returning: value) }
                        } catch {
                            return { continuation.resume(throwing: error) }
                        }
                    },
                    fail: { continuation.resume(throwing: $0) }))
            guard !groupCommitScheduled else { return }
            groupCommitScheduled = true
            // Runs after the calls already waiting for the actor, which join this group.
            Task { self.commitGroup() }
        }
    }

    /// Applies every waiting grouped write in one transaction, then answers each of their callers.
    private func commitGroup() {
        let writes = groupedWrites
        groupedWrites = []
        groupCommitScheduled = false
        groupCommits += 1
        let answers: [() -> Void]
        do {
            answers = try connection.transaction {
                var answers: [() -> Void] = []
                answers.reserveCapacity(writes.count)
                for write in writes {
                    answers.append(write.run(connection))
                    guard connection.inTransaction else { throw GroupCommitLost() }
                }
                return answers
            }
        } catch {
            for write in writes { write.fail(error) }
            return
        }
        for answer in answers { answer() }
    }
}
