import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// A match's mate requests go into SQLite one INSERT each; the constraints decide, and a refusal still names
/// its reason (as the PostgreSQL store's one-statement insert does) and stores nothing.
@Suite("SQLite mate request inserts")
struct SQLiteMateRequestInsertTests {
    private func pair(drop: String) -> [MateRequestRecord] {
        [
            MateRequestRecord(id: MateRequestID.toInitiator(dropID: drop), dropID: drop, senderID: "bob", recipientID: "ana", createdAt: t0),
            MateRequestRecord(id: MateRequestID.toPeer(dropID: drop), dropID: drop, senderID: "ana", recipientID: "bob", createdAt: t0),
        ]
    }

    @Test("both requests are stored; a missing drop or a taken id is named, and nothing is stored")
    func refusalsNameTheirReason() async throws {
        let (database, directory) = try SQLiteGroupCommitTests.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = PushRepositories(database: database)
        _ = try await store.drops.report(dropReport("ana", "bob", id: "d1"), now: t0)
        let count = { try await database.perform { try $0.query("SELECT count(*) FROM mate_requests") { $0.int(at: 0) }[0] } }

        try await database.write { db in try SQLiteDropTransaction.insertRequests(self.pair(drop: "d1"), db) }
        #expect(try await store.mateRequests.requests(forDrop: "d1").map(\.id) == ["d1.initiator", "d1.peer"])

        await #expect(throws: PushStoreError.notFound("drop nowhere")) {
            try await database.write { db in try SQLiteDropTransaction.insertRequests(self.pair(drop: "nowhere"), db) }
        }
        await #expect(throws: PushStoreError.duplicateID("d1.initiator")) {
            try await database.write { db in try SQLiteDropTransaction.insertRequests(self.pair(drop: "d1"), db) }
        }
        // The same id twice in one batch: the second is the one named.
        let twice = pair(drop: "d1").map { request in
            var again = request
            again.id = "d1.again"
            return again
        }
        await #expect(throws: PushStoreError.duplicateID("d1.again")) {
            try await database.write { db in try SQLiteDropTransaction.insertRequests(twice, db) }
        }
        #expect(try await count() == 2)
    }
}
