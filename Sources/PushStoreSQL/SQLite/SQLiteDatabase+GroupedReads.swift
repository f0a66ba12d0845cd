import PushStore
import SQLiteDriver

extension SQLiteDatabase {
    /// Runs `body`, a read, in one read transaction shared with the other grouped reads that reach the actor
    /// before it runs (as `writeGrouped` does for writes), and returns what it read or throws what it threw.
    ///
    /// Outside a transaction SQLite takes and drops its file locks (`fcntl`) and the WAL read lock around
    /// every statement; reads that arrive together (the profile-drop reports' reads of both users' cards
    /// and devices) take them once for the group instead, and are answered together. Each read sees the
    /// database as the group's last commit left it: no write runs on the actor in between.
    func readGrouped<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        do {
            return try await readGroupedOnActor(body)
        } catch {
            throw storeError(error)
        }
    }

    private func readGroupedOnActor<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let first = groupedReads.add { connection in
                let result = Result { try body(connection) }
                return { continuation.resume(with: result) }
            }
            // Runs after the calls already waiting for the actor, which join this group.
            if first { Task { self.runReadGroup() } }
        }
    }

    /// Runs every waiting grouped read in one deferred transaction, then answers each of their callers.
    private func runReadGroup() {
        let reads = groupedReads.take()
        // No transaction is open between the actor's jobs, so BEGIN fails only for want of memory; the
        // reads then run on their own, each statement taking its own locks.
        let began = (try? connection.run("BEGIN")) != nil
        let answers = reads.map { $0(connection) }
        // A read transaction changes nothing, so ending it cannot lose anything; it fails only if SQLite
        // already ended it, and then there is nothing to end.
        if began, connection.inTransaction { _ = try? connection.run("COMMIT") }
        for answer in answers { answer() }
    }
}
