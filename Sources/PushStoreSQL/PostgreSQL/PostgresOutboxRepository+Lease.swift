public import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// A third of the lease: a hold is renewed twice before it could run out, so one late or failed
    /// renewal (a busy database, a dropped connection) still leaves it covered.
    public var leaseRenewalInterval: Duration? { lease / 3 }

    /// See `OutboxRepository.renewLeases`: one UPDATE for all of `holds`, joined by id and fenced like a
    /// completion (still in flight, owned by this instance, under the same attempt). The new deadline is a
    /// lease from now on the database's clock (`PostgresClock`; from `now` only under `.caller`).
    public func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String> {
        guard !holds.isEmpty else { return [] }
        let keys = holds.map { OutboxPushRun.key(of: $0.id) }
        let parameters: [PostgresValue] = [
            .textArray(holds.map(\.id)), .integerArray(holds.map { Int64($0.attempt) }),
            .integer(Int64((lease / .milliseconds(1)).rounded())), .text(database.instanceID), database.clock.millis(now),
            .textArray(keys.map(\.base)), .integerArray(keys.map { Int64($0.index) }),
        ]
        let renewed = try await database.transaction { db in
            db.lookUpByKey()
            db.commitWithoutFlush()
            return try db.query(Self.renewSQL, parameters, committing: true).map { $0.string(at: 0) }
        }
        return Set(renewed)
    }

    /// Moves the lease of notifications $1 (ids, with $6 and $7 their bases and positions) under attempts $2
    /// to $3 ms after now where owner $4 still holds them in flight; $5 is now (ms; NULL: the database's,
    /// `PostgresClock`). One with an outcome row moves its own lease, one without the lease of the range
    /// holding it (once per range). Returns the ids whose lease moved.
    static let renewSQL = """
        WITH h AS MATERIALIZED (
            SELECT v.id, v.attempt, 'in_flight'::text AS fence, x.seq, r.seq IS NOT NULL AS has_state
            FROM unnest($1::text[], $2::bigint[], $6::text[], $7::bigint[]) AS v(id, attempt, base, pos)
            CROSS JOIN LATERAL (SELECT p.lo + v.pos - p.first_index AS seq, p.first_index + p.count > v.pos AS held
                FROM outbox_pushes p WHERE p.base = v.base AND p.first_index <= v.pos
                ORDER BY p.first_index DESC LIMIT 1) x
            LEFT JOIN outbox_state r ON r.seq = x.seq
            WHERE x.held
        ), covered AS MATERIALIZED (
            SELECT h.id, h.attempt, g.lo FROM h CROSS JOIN LATERAL \(PostgresOutboxRepository.rangeAtOrBefore("h.seq"))
            WHERE NOT h.has_state AND g.hi >= h.seq AND (g.done IS NULL OR get_bit(g.done, (h.seq - g.lo)::integer) = 0)
        ), ranges AS (
            UPDATE outbox_segments g SET lease_until = \(PostgresClock.millis("$5")) + $3::bigint,
                updated_at = \(PostgresClock.millis("$5"))
            FROM (SELECT DISTINCT lo, attempt FROM covered) c
            WHERE g.lo = c.lo AND g.claims = c.attempt AND g.owner = $4
            RETURNING g.lo, g.claims
        ), rows AS (
            UPDATE outbox_state s SET lease_until = \(PostgresClock.millis("$5")) + $3::bigint,
                updated_at = \(PostgresClock.millis("$5"))
            FROM h
            WHERE h.has_state AND s.seq = h.seq AND s.attempts = h.attempt AND s.state = h.fence AND s.owner = $4
            RETURNING h.id
        )
        SELECT c.id FROM covered c JOIN ranges g ON g.lo = c.lo AND g.claims = c.attempt
        UNION ALL SELECT id FROM rows
        """
}
