import Foundation

extension PushStore {
    private static let dropColumns = "id, initiator_id, peer_id, state, created_at, expires_at, matched_at, closed_at"

    private static func dropRow(_ row: SQLiteStatement) -> DropRecord {
        DropRecord(id: row.string(at: 0), initiatorID: row.string(at: 1), peerID: row.string(at: 2),
                   state: DropState(rawValue: row.string(at: 3)) ?? .expired,
                   createdAt: Date(storeMillis: row.int64(at: 4)), expiresAt: Date(storeMillis: row.int64(at: 5)),
                   matchedAt: row.optionalInt64(at: 6).map(Date.init(storeMillis:)),
                   closedAt: row.optionalInt64(at: 7).map(Date.init(storeMillis:)))
    }

    /// Stores a new drop; throws `duplicateID` if one with its id exists.
    public func insertDrop(_ drop: DropRecord) throws {
        try drop.validate()
        do {
            try connection.run("""
                INSERT INTO drops (\(Self.dropColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """, [.text(drop.id), .text(drop.initiatorID), .text(drop.peerID), .text(drop.state.rawValue),
                      .integer(drop.createdAt.storeMillis), .integer(drop.expiresAt.storeMillis),
                      drop.matchedAt.map { .integer($0.storeMillis) } ?? .null,
                      drop.closedAt.map { .integer($0.storeMillis) } ?? .null])
        } catch {
            // The body throws only SQLiteError; a constraint failure here is the primary key.
            if error.isConstraintViolation { throw PushStoreError.duplicateID(drop.id) }
            throw error
        }
    }

    /// Moves a pending drop to `state` at `now` (`matchedAt` for matched, `closedAt` for cancelled or expired).
    public func updateDrop(id: String, to state: DropState, at now: Date) throws -> DropRecord {
        try write { db in
            guard var drop = try drop(id: id) else { throw PushStoreError.notFound("drop \(id)") }
            try DropTransition.apply(state, at: now, to: &drop)
            try db.run("UPDATE drops SET state = ?2, matched_at = ?3, closed_at = ?4 WHERE id = ?1", [
                .text(id), .text(drop.state.rawValue),
                drop.matchedAt.map { .integer($0.storeMillis) } ?? .null,
                drop.closedAt.map { .integer($0.storeMillis) } ?? .null,
            ])
            return drop
        }
    }

    /// Every pending drop, oldest first (to rebuild in-memory state after a restart).
    public func pendingDrops() throws -> [DropRecord] {
        try connection.query("""
            SELECT \(Self.dropColumns) FROM drops WHERE state = 'pending' ORDER BY created_at, id
            """, row: Self.dropRow)
    }

    /// The drop with `id`, or nil.
    public func drop(id: String) throws -> DropRecord? {
        try connection.query("SELECT \(Self.dropColumns) FROM drops WHERE id = ?1", [.text(id)],
                             row: Self.dropRow).first
    }
}
