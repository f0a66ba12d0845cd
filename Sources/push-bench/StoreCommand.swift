import Foundation
import PushStore

/// `push-bench store -n N`: B8, outbox enqueue + claim + complete cycles per second on a SQLite file.
enum StoreCommand {
    static func run(_ arguments: Arguments) async throws {
        let total = try arguments.int("n", 200_000)
        let batch = try arguments.int("batch", 1_000)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-bench-store-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = arguments.string("path") ?? directory.appendingPathComponent("outbox.sqlite").path
        let result = try await OutboxBenchmark.run(path: path, total: total, batchSize: batch)
        var report = Report("store")
        report.add("n", result.cycles)
        report.add("batch", batch)
        report.add("seconds", result.seconds)
        report.add("rate", result.cyclesPerSecond)
        report.print()
    }
}
