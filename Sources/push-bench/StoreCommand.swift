import Foundation
import PushStore
import PushStoreBenchmark
import PushStoreSQL

/// `push-bench store -n N [--shape rows|push]`: B8, outbox enqueue + claim + complete cycles per second on a
/// SQLite file (`OutboxBenchmark.Shape`: a row per notification, or a push stored once);
/// with `--database postgres://...` and `--workers W`: B10, the same cycles on that PostgreSQL database from
/// W workers at once, each an instance of its own (own pool and instance id), `n / W` cycles each.
enum StoreCommand {
    static func run(_ arguments: Arguments) async throws {
        let total = try arguments.int("count", 200_000)
        let batch = try arguments.int("batch", 1_000)
        let shapeName = arguments.string("shape") ?? "rows"
        guard let shape = OutboxBenchmark.Shape(rawValue: shapeName) else {
            throw UsageError(description: "--shape must be rows or push, got \(shapeName)")
        }
        if let url = arguments.string("database") ?? ProcessInfo.processInfo.environment["PUSH_DATABASE"] {
            try await runPostgres(url: url, workers: max(1, try arguments.int("workers", 1)), total: total, batch: batch)
            return
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-bench-store-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = arguments.string("path") ?? directory.appendingPathComponent("outbox.sqlite").path
        let result = try await OutboxBenchmark.run(path: path, total: total, batchSize: batch, shape: shape)
        var report = Report("store")
        report.add("shape", shape.rawValue)
        report.add("n", result.cycles)
        report.add("batch", batch)
        report.add("seconds", result.seconds)
        report.add("rate", result.cyclesPerSecond)
        report.print()
    }

    /// B10: `workers` instances on one PostgreSQL database run their share of cycles at once.
    private static func runPostgres(url: String, workers: Int, total: Int, batch: Int) async throws {
        // Opening the repositories once migrates the empty database.
        _ = try await PushRepositories.postgres(url: url, poolSize: 1, instanceID: "bench-migrate")
        var outboxes: [PostgresOutboxRepository] = []
        for number in 1...workers {
            let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "bench-\(number)")
            outboxes.append(PostgresOutboxRepository(database: database))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let now = Date()
        let cycles = try await withThrowingTaskGroup(of: Int.self) { group in
            for outbox in outboxes {
                group.addTask {
                    try await OutboxBenchmark.run(outbox: outbox, total: total / workers, batchSize: batch, now: now).cycles
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var report = Report("store")
        report.add("n", cycles)
        report.add("batch", batch)
        report.add("workers", workers)
        report.add("seconds", seconds)
        report.add("rate", seconds > 0 ? Double(cycles) / seconds : 0)
        report.print()
    }
}
