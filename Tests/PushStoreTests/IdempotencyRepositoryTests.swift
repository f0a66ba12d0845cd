import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("IdempotencyRepository (both twins)")
struct IdempotencyRepositoryTests {
    static let day: TimeInterval = 24 * 3600
    static let answer = IdempotentAnswer(status: 202, body: Array(#"{"push_id":"p"}"#.utf8))

    @Test(arguments: StoreKind.allCases)
    func claimAnswerReplay(kind: StoreKind) async throws {
        let keys = try await kind.make().idempotency
        #expect(try await keys.begin(key: "k", scope: "a POST /v1/pushes", fingerprint: [1], now: t0, ttl: .seconds(Self.day)) == .proceed)
        #expect(try await keys.begin(key: "k", scope: "a POST /v1/pushes", fingerprint: [1], now: at(1), ttl: .seconds(Self.day)) == .inProgress)
        try await keys.finish(key: "k", scope: "a POST /v1/pushes", answer: Self.answer)
        #expect(
            try await keys.begin(key: "k", scope: "a POST /v1/pushes", fingerprint: [1], now: at(2), ttl: .seconds(Self.day))
                == .replay(Self.answer))
        #expect(try await keys.begin(key: "k", scope: "a POST /v1/pushes", fingerprint: [2], now: at(3), ttl: .seconds(Self.day)) == .mismatch)
        // Another scope is another key.
        #expect(try await keys.begin(key: "k", scope: "b POST /v1/pushes", fingerprint: [2], now: at(4), ttl: .seconds(Self.day)) == .proceed)
    }

    @Test(arguments: StoreKind.allCases)
    func expiryAndAbandon(kind: StoreKind) async throws {
        let keys = try await kind.make().idempotency
        #expect(try await keys.begin(key: "k", scope: "s", fingerprint: [1], now: t0, ttl: .seconds(Self.day)) == .proceed)
        try await keys.finish(key: "k", scope: "s", answer: Self.answer)
        // After the time to live the key names a new request, whatever its body.
        #expect(try await keys.begin(key: "k", scope: "s", fingerprint: [9], now: at(Self.day + 1), ttl: .seconds(Self.day)) == .proceed)
        try await keys.abandon(key: "k", scope: "s")
        #expect(try await keys.begin(key: "k", scope: "s", fingerprint: [7], now: at(Self.day + 2), ttl: .seconds(Self.day)) == .proceed)
        // An answered key is not abandoned by mistake.
        try await keys.finish(key: "k", scope: "s", answer: Self.answer)
        try await keys.abandon(key: "k", scope: "s")
        #expect(
            try await keys.begin(key: "k", scope: "s", fingerprint: [7], now: at(Self.day + 3), ttl: .seconds(Self.day))
                == .replay(Self.answer))
    }

    @Test("claims without an answer are dropped when the database opens again; answers stay")
    func crashRecovery() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("idem-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let keys = SQLiteIdempotencyRepository(database: try SQLiteDatabase(path: path))
            #expect(try await keys.begin(key: "answered", scope: "s", fingerprint: [1], now: t0, ttl: .seconds(Self.day)) == .proceed)
            try await keys.finish(key: "answered", scope: "s", answer: Self.answer)
            #expect(try await keys.begin(key: "cut", scope: "s", fingerprint: [1], now: t0, ttl: .seconds(Self.day)) == .proceed)
        }
        let reopened = SQLiteIdempotencyRepository(database: try SQLiteDatabase(path: path))
        #expect(
            try await reopened.begin(key: "answered", scope: "s", fingerprint: [1], now: at(5), ttl: .seconds(Self.day))
                == .replay(Self.answer))
        #expect(try await reopened.begin(key: "cut", scope: "s", fingerprint: [1], now: at(5), ttl: .seconds(Self.day)) == .proceed)
    }
}
