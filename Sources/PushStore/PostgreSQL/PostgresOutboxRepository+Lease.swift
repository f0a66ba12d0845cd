public import Foundation

extension PostgresOutboxRepository {
    /// A third of the lease: a hold is renewed twice before it could run out, so one late or failed
    /// renewal (a busy database, a dropped connection) still leaves it covered.
    public var leaseRenewalInterval: Duration? { lease / 3 }

    /// See `OutboxRepository.renewLeases`: one UPDATE for all of `holds`, joined by id and fenced like a
    /// completion (still in flight, owned by this instance, under the same attempt).
    public func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String> {
        guard !holds.isEmpty else { return [] }
        let parameters: [PostgresValue] = [
            .textArray(holds.map(\.id)), .integerArray(holds.map { Int64($0.attempt) }),
            .integer(now.addingTimeInterval(lease / .seconds(1)).storeMillis), .text(database.instanceID),
            .integer(now.storeMillis),
        ]
        let renewed = try await database.transaction { db in
            db.joinByLookup()
            return try db.query(Self.renewSQL, parameters, committing: true).map { $0.string(at: 0) }
        }
        return Set(renewed)
    }

    /// Moves the lease of rows $1 (ids) under attempts $2 to $3 (ms) where owner $4 still holds them in
    /// flight; $5 is now. Returns the ids changed.
    static let renewSQL = """
        WITH h AS MATERIALIZED (
            SELECT v.*, 'in_flight'::text AS fence FROM unnest($1::text[], $2::bigint[]) AS v(id, attempt)
        )
        UPDATE outbox_state s SET lease_until = $3, updated_at = $5
        FROM h
        WHERE s.id = h.id AND s.attempts = h.attempt AND s.state = h.fence AND s.owner = $4
        RETURNING s.id
        """
}
