import Foundation

/// `DropRepository` on a `PostgresDatabase`: the `drops` table.
public struct PostgresDropRepository: DropRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    /// The columns of `drops`, in SELECT (and INSERT) order.
    enum Column: Int32, PostgresColumn {
        case id, initiatorID, peerID, state, createdAt, expiresAt, matchedAt, closedAt

        var expression: String {
            switch self {
            case .id: "id"
            case .initiatorID: "initiator_id"
            case .peerID: "peer_id"
            case .state: "state"
            case .createdAt: "created_at"
            case .expiresAt: "expires_at"
            case .matchedAt: "matched_at"
            case .closedAt: "closed_at"
            }
        }
    }

    private static let columns = Column.selectList

    private static func record(_ row: PostgresRow) -> DropRecord {
        DropRecord(
            id: row.string(Column.id), initiatorID: row.string(Column.initiatorID),
            peerID: row.string(Column.peerID), state: DropState(rawValue: row.string(Column.state)) ?? .expired,
            createdAt: row.date(Column.createdAt), expiresAt: row.date(Column.expiresAt),
            matchedAt: row.optionalDate(Column.matchedAt), closedAt: row.optionalDate(Column.closedAt))
    }

    /// See `DropRepository.insert`.
    public func insert(_ drop: DropRecord) async throws {
        try drop.validate()
        try await database.pool.withConnection { db in
            do {
                try db.run(
                    "INSERT INTO drops (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    [
                        .text(drop.id), .text(drop.initiatorID), .text(drop.peerID), .text(drop.state.rawValue),
                        .integer(drop.createdAt.storeMillis), .integer(drop.expiresAt.storeMillis),
                        .integer(drop.matchedAt?.storeMillis), .integer(drop.closedAt?.storeMillis),
                    ])
            } catch let error as PostgresError where error.isUniqueViolation {
                throw PushStoreError.duplicateID(drop.id)  // the primary key is the only unique constraint
            }
        }
    }

    /// See `DropRepository.update(id:to:at:)`: the row is locked (`FOR UPDATE`) while the transition is
    /// decided, so two instances changing one drop at once decide it once.
    public func update(id: String, to state: DropState, at now: Date) async throws -> DropRecord {
        try await database.pool.transaction { db in
            guard
                var drop = try db.query("SELECT \(Self.columns) FROM drops WHERE id = $1 FOR UPDATE", [.text(id)])
                    .map(Self.record).first
            else { throw PushStoreError.notFound("drop \(id)") }
            try DropTransition.apply(state, at: now, to: &drop)
            try db.run(
                "UPDATE drops SET state = $2, matched_at = $3, closed_at = $4 WHERE id = $1",
                [
                    .text(id), .text(drop.state.rawValue), .integer(drop.matchedAt?.storeMillis),
                    .integer(drop.closedAt?.storeMillis),
                ])
            return drop
        }
    }

    /// See `DropRepository.pending`.
    public func pending() async throws -> [DropRecord] {
        try await database.pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM drops WHERE state = 'pending' ORDER BY created_at, id").map(Self.record)
        }
    }

    /// See `DropRepository.drop(id:)`.
    public func drop(id: String) async throws -> DropRecord? {
        try await database.pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM drops WHERE id = $1", [.text(id)]).map(Self.record).first
        }
    }
}
