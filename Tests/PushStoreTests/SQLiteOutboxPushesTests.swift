import APNSCore
import Foundation
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The SQLite outbox stores a push once (`SQLiteSchema.outboxPushes`): what it writes per push and per
/// notification, and the step from the previous schema with rows in every state.
@Suite("SQLite outbox: a push stored once")
struct SQLiteOutboxPushesTests {
    /// `count` notifications of one push to one topic, with ids made as the API makes them.
    static func push(_ count: Int, id push: String = "push-1", now: Date = t0) -> [OutboxItem] {
        var random = SystemRandomNumberGenerator()
        return OutboxID.makeDerived(count: count, at: now, using: &random).enumerated().map { index, ids in
            OutboxItem(
                id: ids.id, pushID: push, token: token(index), topic: topic, pushType: "alert",
                payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), environment: "production", apnsID: ids.apnsID, now: now)
        }
    }

    static func rows(_ table: String, _ database: SQLiteDatabase) async throws -> Int {
        try await database.perform { db in try db.query("SELECT count(*) FROM \(table)") { $0.int(at: 0) }[0] }
    }

    @Test("a push's notifications are one push row and one range; accepted ones leave no row")
    func acceptedNotificationsCostNoRow() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let outbox = SQLiteOutboxRepository(database: database)
        let items = Self.push(1_000)
        try await outbox.enqueue(items)
        #expect(try await Self.rows("outbox_pushes", database) == 1)
        #expect(try await Self.rows("outbox_ranges", database) == 1)
        #expect(try await Self.rows("outbox_state", database) == 0)
        let claimed = try await outbox.claim(limit: 600, now: t0)
        #expect(claimed.map(\.id) == items.prefix(600).map(\.id))
        #expect(claimed.allSatisfy { $0.receipt.range == 1 && $0.attempts == 1 })
        #expect(try await Self.rows("outbox_ranges", database) == 2, "split at the claim's limit")
        // One rejected, one retried, one accepted with an apns-unique-id: a row each; the rest none.
        let results = claimed.enumerated().map { index, item in
            OutboxCompletion(
                item,
                index == 0
                    ? .rejected(status: 400, reason: "BadDeviceToken")
                    : index == 1
                        ? .retry(status: 503, reason: "ServiceUnavailable")
                        : .accepted(apnsUniqueID: index == 2 ? "u-2" : nil))
        }
        let states = try await outbox.complete(results, now: at(1))
        #expect(states.count == 600 && states[items[0].id] == .rejected && states[items[1].id] == .queued)
        #expect(try await Self.rows("outbox_state", database) == 3)
        #expect(try await Self.rows("outbox_ranges", database) == 1, "the claimed range is gone")
        #expect(try await outbox.counts() == [.queued: 401, .inFlight: 0, .accepted: 598, .rejected: 1, .failed: 0, .expired: 0])
        let accepted = try #require(try await outbox.item(id: items[3].id))
        #expect(accepted.state == .accepted && accepted.attempts == 1 && accepted.lastStatus == 200 && accepted.updatedAt == at(1))
        #expect(accepted.target == .device(token(3)) && accepted.apnsID?.rawValue == items[3].id)
        #expect(try await outbox.item(id: items[2].id)?.apnsUniqueID == "u-2")
        #expect(try await outbox.item(id: items[700].id)?.state == .queued)
        #expect(try await outbox.items(pushID: "push-1").map(\.id) == items.map(\.id))
        // A live range some of whose notifications have left it: half of a claim of 10 answered.
        let more = try await outbox.claim(limit: 10, now: at(2))
        try await outbox.complete(more.prefix(5).map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(3))
        #expect(try await outbox.pendingCounts() == [.queued: 391, .inFlight: 5])
        // The view shows every notification as the item reads do.
        let view = try await database.perform { db in
            try db.query("SELECT id, state, token, apns_id, attempts, updated_at FROM outbox ORDER BY seq") {
                [$0.string(at: 0), $0.string(at: 1), $0.string(at: 2), $0.string(at: 3), $0.string(at: 4), $0.string(at: 5)]
            }
        }
        let read = try await outbox.allItems()
        #expect(Set(read.map(\.state)) == [.accepted, .rejected, .queued, .inFlight])
        #expect(
            view
                == read.map {
                    [
                        $0.id, $0.state.rawValue, $0.target.deviceToken?.hex ?? "", $0.apnsID?.rawValue ?? "", String($0.attempts),
                        String($0.updatedAt.storeMillis),
                    ]
                })
        // An id of the push is taken, even one stored only as a position.
        await #expect(throws: PushStoreError.duplicateID(items[5].id)) {
            try await outbox.enqueue([outboxItem("fresh"), items[5]])
        }
        #expect(try await outbox.item(id: "fresh") == nil)
    }

    @Test("completions without a receipt find their notification by id, fenced by the range's claims")
    func completionsByIDAreFenced() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let outbox = SQLiteOutboxRepository(database: database)
        let items = Self.push(4)
        try await outbox.enqueue(items)
        _ = try await outbox.claim(limit: 4, now: t0)
        #expect(try await outbox.recoverInFlight() == 4)
        let again = try await outbox.claim(limit: 4, now: t0)
        #expect(again.map(\.attempts) == [2, 2, 2, 2])
        // The first claim's outcome is stale; the second's counts, by id alone.
        #expect(try await outbox.complete([done(items[0].id, .accepted(apnsUniqueID: nil), attempt: 1)], now: at(1)).isEmpty)
        #expect(try await outbox.complete([done(items[0].id, .accepted(apnsUniqueID: nil), attempt: 2)], now: at(1)) == [items[0].id: .accepted])
        #expect(try await outbox.complete([done(items[0].id, .accepted(apnsUniqueID: nil), attempt: 2)], now: at(1)).isEmpty)
        #expect(try await outbox.item(id: items[0].id)?.attempts == 2)
        #expect(try await outbox.pendingCounts() == [.queued: 0, .inFlight: 3])
    }

    @Test("retention deletes whole settled pushes, counting their notifications")
    func purgeDeletesWholePushes() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let outbox = SQLiteOutboxRepository(database: database)
        let first = Self.push(5, id: "a")
        let second = Self.push(3, id: "b")
        try await outbox.enqueue(first)
        try await outbox.enqueue(second)
        let claimed = try await outbox.claim(limit: 8, now: t0)
        try await outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(1))
        #expect(try await outbox.purge(olderThan: at(2), limit: 1) == 5, "a whole push, past the limit")
        #expect(try await outbox.items(pushID: "a").isEmpty)
        #expect(try await outbox.purge(olderThan: at(2), limit: 1) == 3)
        #expect(try await outbox.purge(olderThan: at(2), limit: 1) == 0)
        #expect(try await Self.rows("outbox_pushes", database) == 0)
        #expect(try await Self.rows("outbox_settled", database) == 0)
    }

    @Test("claims a few notifications at a time hand out the push's own targets, never a purged push's")
    func claimedTargetsComeFromTheirOwnPush() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let outbox = SQLiteOutboxRepository(database: database)
        let first = Self.push(3, id: "a")
        try await outbox.enqueue(first)
        var claimed: [OutboxItem] = []
        for second in 0..<3 { claimed += try await outbox.claim(limit: 1, now: at(Double(second))).items }
        #expect(claimed.map(\.target) == first.map(\.target))
        try await outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(5))
        #expect(try await outbox.purge(olderThan: at(10), limit: 10) == 3)
        // The next push takes the freed `seq` numbers: its own targets go out.
        let next = Self.push(3, id: "b").enumerated().map { index, item in
            var item = item
            item.target = .device(token(100 + index))
            return item
        }
        try await outbox.enqueue(next)
        #expect(try await outbox.claim(limit: 3, now: at(11)).map(\.target) == next.map(\.target))
    }

    /// A file of the previous version (rows in `outbox_items` and `outbox_state`) with notifications queued,
    /// in flight and final: after the step, each is read back as it was, the pending ones are claimed and
    /// completed, and accepted rows without an apns-unique-id no longer keep a state row.
    @Test func previousVersionRowsSurviveTheStep() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushes-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let previous = Array(SQLiteSchema.migrations.prefix { $0.name != "outbox-pushes" })
        #expect(SQLiteSchema.migrations[previous.count].name == "outbox-pushes")
        var random = SystemRandomNumberGenerator()
        let derived = OutboxID.makeDerived(count: 3, at: t0, using: &random)
        let channel = "dGVzdC1jaGFubmVs"
        do {
            let old = try SQLiteConnection(path: path)
            try old.migrate(previous.map(\.step))
            let rows = [
                LegacyOutboxRow(seq: 1, id: "done", token: 1, state: "accepted", attempts: 1, lastStatus: 200, createdAt: at(0), updatedAt: at(1)),
                LegacyOutboxRow(
                    seq: 2, id: "sandbox", token: 2, state: "accepted", attempts: 1, lastStatus: 200, apnsUniqueID: "u-7",
                    createdAt: at(0), updatedAt: at(2)),
                LegacyOutboxRow(
                    seq: 3, id: "bad", token: 3, state: "rejected", attempts: 1, lastStatus: 400, lastReason: "BadDeviceToken",
                    createdAt: at(0), updatedAt: at(3)),
                LegacyOutboxRow(seq: 4, id: derived[1].id, token: 4, state: "in_flight", attempts: 1, apnsID: derived[1].id, createdAt: at(0)),
                LegacyOutboxRow(seq: 5, id: derived[2].id, token: 5, state: "queued", attempts: 0, apnsID: derived[2].id, createdAt: at(0)),
                LegacyOutboxRow(seq: 6, id: "broadcast", push: "push-2", token: 0, channel: channel, state: "queued", attempts: 0, createdAt: at(0)),
                LegacyOutboxRow(
                    seq: 7, id: "later", token: 7, state: "queued", attempts: 2, lastStatus: 503, lastReason: "ServiceUnavailable",
                    createdAt: at(0), updatedAt: at(4), nextAttemptAt: at(60)),
            ]
            for row in rows { try row.insert(old) }
        }
        let database = try SQLiteDatabase(path: path)
        let outbox = SQLiteOutboxRepository(database: database)
        #expect(try await database.schemaVersion() == SQLiteSchema.migrations.count)
        #expect(database.recoveredAtOpen == 1)
        #expect(try await database.integrityCheck() == "ok")
        #expect(try await database.rowCount("outbox") == 7)
        #expect(try await Self.rows("outbox_state", database) == 6, "the accepted row without a unique id has none")
        #expect(try await outbox.counts() == [.queued: 4, .inFlight: 0, .accepted: 2, .rejected: 1, .failed: 0, .expired: 0])

        let doneRow = try #require(try await outbox.item(id: "done"))
        #expect(doneRow.state == .accepted && doneRow.updatedAt == at(1) && doneRow.lastStatus == 200 && doneRow.attempts == 1)
        #expect(try await outbox.item(id: "sandbox")?.apnsUniqueID == "u-7")
        #expect(try await outbox.item(id: "bad")?.lastReason == .rejected(.badDeviceToken))
        let moved = try #require(try await outbox.item(id: derived[1].id))
        #expect(moved.state == .queued && moved.attempts == 1 && moved.apnsID == derived[1].apnsID && moved.target == .device(token(4)))
        #expect(try await outbox.item(id: "broadcast")?.target == .channel(APNSChannelID(rawValue: channel)))
        #expect(try await outbox.items(pushID: "push-1").map(\.id) == ["done", "sandbox", "bad", derived[1].id, derived[2].id, "later"])

        let claimed = try await outbox.claim(limit: 10, now: at(5))
        #expect(claimed.map(\.id) == [derived[1].id, derived[2].id, "broadcast"])
        #expect(claimed.map(\.attempts) == [2, 1, 1])
        let states = try await outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(6))
        #expect(states.count == 3 && states.values.allSatisfy { $0 == .accepted })
        #expect(try await outbox.claim(limit: 10, now: at(61)).map(\.id) == ["later"])
        #expect(try await outbox.pendingCounts() == [.queued: 0, .inFlight: 1])
        // New pushes go after the migrated rows; the migrated ids stay taken.
        let fresh = Self.push(2, id: "push-3")
        try await outbox.enqueue(fresh)
        #expect(try await outbox.allItems().map(\.id).suffix(2) == fresh.map(\.id))
        await #expect(throws: PushStoreError.duplicateID(derived[2].id)) {
            try await outbox.enqueue([outboxItem(derived[2].id)])
        }
        await #expect(throws: PushStoreError.duplicateID("done")) { try await outbox.enqueue([outboxItem("done")]) }
    }
}
