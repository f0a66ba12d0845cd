import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import PushStoreBenchmark
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("OutboxBenchmark")
struct OutboxBenchmarkTests {
    /// Only checks the probe works end to end; speed is measured by `make bench`, not by tests.
    @Test func smallRunCompletesEveryCycle() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let result = try await OutboxBenchmark.run(path: path, total: 2_500, batchSize: 1_000)
        #expect(result.cycles == 2_500)
        let store = try SQLiteDatabase(path: path)
        #expect(try await SQLiteOutboxRepository(database: store).counts()[.accepted] == 2_500)
        #expect(try await store.integrityCheck() == "ok")
    }
}
