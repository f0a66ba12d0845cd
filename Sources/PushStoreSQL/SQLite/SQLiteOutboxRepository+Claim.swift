public import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// See `OutboxRepository.claim`: up to `limit` queued notifications due at `now` (earliest due first) go
    /// in flight, counting the attempt; those whose expiration has passed become `expired` instead, all in one
    /// transaction. Notifications without an outcome row are claimed by the range (whole ranges, the last one
    /// split at the limit), those with one (a retry) one by one.
    public func claim(limit: Int, now: Date) async throws -> OutboxClaim {
        guard limit > 0 else { return OutboxClaim() }
        let cache = database.targetCache
        return try await database.write { db in
            var claim = OutboxClaim()
            claim.items.reserveCapacity(min(limit, 4_096))
            // Expired notifications are reported but do not count against `limit`: pick again until it is
            // reached or a pick finds fewer than it asked for.
            while claim.items.count < limit {
                let page = limit - claim.items.count
                if try Self.claimPage(page, now: now, cache: cache, db, into: &claim) < page { break }
            }
            try Self.reportEnded(claim.expired.map { ($0, nil) }, now: now, db)
            return claim
        }
    }

    /// A due outcome row (`seq`) or range (`lo`), as picked.
    private struct Candidate {
        var due: Int64
        var key: Int64
        var range: SQLiteOutboxRange?
    }

    /// Claims up to `page` notifications into `claim`; returns how many it took (claimed and expired).
    private static func claimPage(
        _ page: Int, now: Date, cache: OutboxTargetCache, _ db: SQLiteConnection, into claim: inout OutboxClaim
    ) throws -> Int {
        let millis = now.storeMillis
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        var candidates = try db.query(
            """
            SELECT seq, next_attempt_at FROM outbox_state INDEXED BY outbox_queue
            WHERE state = 'queued' AND next_attempt_at <= ?1 ORDER BY next_attempt_at, seq LIMIT ?2
            """, [.integer(millis), .integer(Int64(page))]
        ) { Candidate(due: $0.int64(at: 1), key: $0.int64(at: 0), range: nil) }
        do {
            let ranges = try db.statement(
                """
                SELECT \(SQLiteOutboxRange.columns) FROM outbox_ranges INDEXED BY outbox_ranges_due
                WHERE in_flight = 0 AND due <= ?1 ORDER BY due, lo
                """)
            defer { ranges.reset() }
            try ranges.bind(millis, at: 1)
            var total = 0
            while total < page, try ranges.step() {
                let range = SQLiteOutboxRange(ranges)
                total += range.remaining
                candidates.append(Candidate(due: range.due, key: range.lo, range: range))
            }
        }
        candidates.sort { ($0.due, $0.key) < ($1.due, $1.key) }
        var taken = 0
        for candidate in candidates where taken < page {
            if var range = candidate.range {
                let wanted = page - taken
                if range.remaining > wanted {
                    let rest = range.split(keeping: wanted)
                    try insert(rest, db)
                }
                taken += try claimRange(range, millis: millis, second: second, cache: cache, db, into: &claim)
            } else {
                try claimRow(candidate.key, millis: millis, second: second, db, into: &claim)
                taken += 1
            }
        }
        return taken
    }

    /// Writes a new range.
    static func insert(_ range: SQLiteOutboxRange, _ db: SQLiteConnection) throws {
        try db.run(
            """
            INSERT OR ROLLBACK INTO outbox_ranges (lo, hi, due, claims, in_flight, remaining, done, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """,
            [
                .integer(range.lo), .integer(range.hi), .integer(range.due), .integer(Int64(range.claims)),
                .integer(range.inFlight ? 1 : 0), .integer(Int64(range.remaining)),
                range.done.isEmpty ? .null : .blob(range.done), .integer(range.updatedAt),
            ])
    }

    /// Writes `range` back as it now stands: deleted when none of its notifications is left.
    static func save(_ range: SQLiteOutboxRange, _ db: SQLiteConnection) throws {
        if range.remaining <= 0 {
            try db.run("DELETE FROM outbox_ranges WHERE lo = ?1", [.integer(range.lo)])
            return
        }
        try db.run(
            """
            UPDATE OR ROLLBACK outbox_ranges SET hi = ?2, claims = ?3, in_flight = ?4, remaining = ?5, done = ?6,
                updated_at = ?7
            WHERE lo = ?1
            """,
            [
                .integer(range.lo), .integer(range.hi), .integer(Int64(range.claims)), .integer(range.inFlight ? 1 : 0),
                .integer(Int64(range.remaining)), range.done.isEmpty ? .null : .blob(range.done), .integer(range.updatedAt),
            ])
    }

    /// Claims the pending notifications of `range`: in flight under one more claim, each built from its push
    /// (sharing its payload, topic and push id) with the range in its receipt; expired ones get their outcome
    /// row and leave the range. Returns how many it took.
    private static func claimRange(
        _ picked: SQLiteOutboxRange, millis: Int64, second: Int64, cache: OutboxTargetCache, _ db: SQLiteConnection,
        into claim: inout OutboxClaim
    ) throws -> Int {
        var range = picked
        let attemptsBefore = range.claims
        range.claims += 1
        range.inFlight = true
        range.updatedAt = millis
        let pushes = try pushes(from: range.lo, to: range.hi, withTargets: false, db)
        let updatedAt = Date(storeMillis: millis)
        let due = Date(storeMillis: range.due)
        var taken = 0
        var expired: [(seq: Int64, lo: Int64)] = []
        for push in pushes {
            let first = max(push.lo, range.lo)
            let last = min(push.hi, range.hi)
            guard first <= last else { continue }
            let targets = try targets(of: push, cache: cache, db)
            let expires = push.isExpired(attempts: attemptsBefore, second: second)
            var seq = first
            while seq <= last {
                defer { seq += 1 }
                if range.isDone(seq) { continue }
                taken += 1
                let k = Int(seq - push.lo)
                if expires {
                    expired.append((seq, push.lo))
                    claim.expired.append(push.id(at: k))
                    continue
                }
                var item = push.item(at: k, target: targets[k])
                item.state = .inFlight
                item.attempts = range.claims
                item.nextAttemptAt = due
                item.updatedAt = updatedAt
                item.receipt = OutboxReceipt(sequence: seq, range: range.lo)
                claim.items.append(item)
            }
        }
        if !expired.isEmpty {
            let settle = try db.statement(
                """
                INSERT OR ROLLBACK INTO outbox_state (seq, state, attempts, next_attempt_at, last_reason, updated_at)
                VALUES (?1, 'expired', ?2, ?3, 'Expired', ?4)
                """)
            for (seq, _) in expired {
                defer { settle.reset() }
                try settle.bind(seq, at: 1)
                try settle.bind(Int64(attemptsBefore), at: 2)
                try settle.bind(range.due, at: 3)
                try settle.bind(millis, at: 4)
                _ = try settle.step()
                range.markDone(seq)
            }
        }
        try save(range, db)
        return taken
    }

    /// Claims the notification `seq` by its outcome row (queued again after a retry): in flight with its
    /// attempt counted, or `expired`.
    private static func claimRow(
        _ seq: Int64, millis: Int64, second: Int64, _ db: SQLiteConnection, into claim: inout OutboxClaim
    ) throws {
        guard let push = try pushes(from: seq, to: seq, db).first else { return }
        let k = Int(seq - push.lo)
        guard
            let outcome = try db.query("SELECT \(Outcome.columns) FROM outbox_state WHERE seq = ?1", [.integer(seq)], row: { Outcome($0, at: 0) })
                .first
        else { return }
        var item = push.item(at: k, target: push.target(at: k))
        outcome.apply(to: &item)
        item.updatedAt = Date(storeMillis: millis)
        if push.isExpired(attempts: outcome.attempts, second: second) {
            try db.run(
                "UPDATE OR ROLLBACK outbox_state SET state = 'expired', last_reason = 'Expired', updated_at = ?2 WHERE seq = ?1",
                [.integer(seq), .integer(millis)])
            claim.expired.append(item.id)
            return
        }
        try db.run(
            "UPDATE OR ROLLBACK outbox_state SET state = 'in_flight', attempts = attempts + 1, updated_at = ?2 WHERE seq = ?1",
            [.integer(seq), .integer(millis)])
        item.state = .inFlight
        item.attempts += 1
        item.receipt = OutboxReceipt(sequence: seq, range: nil)
        claim.items.append(item)
    }

    /// Records that notifications of the pushes `pushes` (by `lo`, in order) were accepted without an outcome
    /// row at `millis`, under that many claims: their `updated_at` and attempts, and the clock retention reads
    /// beside the outcome rows' (a push none of whose notifications was accepted so is dated by its enqueue).
    static func markSettled(_ pushes: [(lo: Int64, acceptedAttempts: Int?)], millis: Int64, _ db: SQLiteConnection) throws {
        let upsert = try db.statement(
            """
            INSERT INTO outbox_settled (lo, settled_at, attempts) VALUES (?1, ?2, ?3)
            ON CONFLICT (lo) DO UPDATE SET settled_at = max(settled_at, excluded.settled_at),
                attempts = coalesce(max(attempts, excluded.attempts), attempts, excluded.attempts)
            """)
        for (lo, attempts) in pushes {
            defer { upsert.reset() }
            try upsert.bind(lo, at: 1)
            try upsert.bind(millis, at: 2)
            try upsert.bind(attempts.map(Int64.init), at: 3)
            _ = try upsert.step()
        }
    }
}
