import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

#if canImport(Glibc)
import Glibc
#endif

@Suite("Crash safety")
struct CrashSafetyTests {
    /// The `pushstore-crash-writer` binary: next to the test bundle, or in a `.build/debug` above it.
    static func writerURL() -> URL? {
        let name = "pushstore-crash-writer"
        let fm = FileManager.default
        var starts = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])]
        starts += starts.map { $0.deletingLastPathComponent() }
        for start in starts {
            var dir = start
            for _ in 0..<6 {
                for candidate in [dir.appendingPathComponent(name), dir.appendingPathComponent(".build/debug/\(name)")]
                where fm.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }

    @Test func committedRowsSurviveSIGKILL() async throws {
        let writer = try #require(Self.writerURL(), "pushstore-crash-writer not found next to the tests")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }

        let process = Process()
        process.executableURL = writer
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()

        // Read whole lines until 300 ids are in, kill the writer mid-stream, then drain to EOF:
        // every complete line was printed after its commit returned.
        let reader = pipe.fileHandleForReading
        var buffer = [UInt8]()
        var ids: [String] = []
        var killed = false
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer += chunk
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.hasPrefix("committed ") { ids.append(String(line.dropFirst("committed ".count))) }
            }
            if !killed && ids.count >= 300 {
                kill(process.processIdentifier, SIGKILL)
                killed = true
            }
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        #expect(ids.count >= 300)

        let database = try SQLiteDatabase(path: path)
        let store = SQLiteOutboxRepository(database: database)
        #expect(try await database.integrityCheck() == "ok")
        var missing: [String] = []
        for id in ids where try await store.item(id: id) == nil { missing.append(id) }
        #expect(missing.isEmpty, "committed but lost: \(missing.prefix(5))")
        #expect(try await database.rowCount("outbox") >= ids.count)
    }

    @Test func inFlightRowsGoBackToTheQueueWhenReopened() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reopen-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try PushRepositories.sqlite(path: path).outbox
            try await store.enqueue([outboxItem("a"), outboxItem("b"), outboxItem("c")])
            #expect(try await store.claim(limit: 2, now: t0).count == 2)
        }
        let reopened = try PushRepositories.sqlite(path: path)
        #expect(reopened.database.recoveredAtOpen == 2)
        #expect(try await reopened.outbox.counts()[.queued] == 3)
        #expect(try await reopened.outbox.claim(limit: 3, now: t0).map(\.attempts) == [2, 2, 1])
    }
}
