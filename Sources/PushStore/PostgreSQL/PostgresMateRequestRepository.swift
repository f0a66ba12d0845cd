import Foundation

/// `MateRequestRepository` on a `PostgresDatabase`: the `mate_requests` table.
public struct PostgresMateRequestRepository: MateRequestRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    /// The columns of `mate_requests`, in SELECT (and INSERT) order.
    enum Column: Int32, PostgresColumn {
        case id, dropID, senderID, recipientID, state, createdAt, answeredAt

        var expression: String {
            switch self {
            case .id: "id"
            case .dropID: "drop_id"
            case .senderID: "sender_id"
            case .recipientID: "recipient_id"
            case .state: "state"
            case .createdAt: "created_at"
            case .answeredAt: "answered_at"
            }
        }
    }

    private static let columns = Column.selectList

    private static func record(_ row: PostgresRow) -> MateRequestRecord {
        MateRequestRecord(
            id: row.string(Column.id), dropID: row.string(Column.dropID),
            senderID: row.string(Column.senderID), recipientID: row.string(Column.recipientID),
            state: MateRequestState(rawValue: row.string(Column.state)) ?? .declined,
            createdAt: row.date(Column.createdAt), answeredAt: row.optionalDate(Column.answeredAt))
    }

    /// See `MateRequestRepository.insert`: the foreign key names a missing drop, the primary key a taken id.
    public func insert(_ request: MateRequestRecord) async throws {
        try request.validate()
        try await database.pool.withConnection { db in
            do {
                try db.run(
                    "INSERT INTO mate_requests (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    [
                        .text(request.id), .text(request.dropID), .text(request.senderID), .text(request.recipientID),
                        .text(request.state.rawValue), .integer(request.createdAt.storeMillis),
                        .integer(request.answeredAt?.storeMillis),
                    ])
            } catch let error as PostgresError where error.isForeignKeyViolation {
                throw PushStoreError.notFound("drop \(request.dropID)")
            } catch let error as PostgresError where error.isUniqueViolation {
                // The id check comes first here, the drop's after the statement: name a missing drop first,
                // as the other stores do.
                let dropExists = try db.query("SELECT 1 FROM drops WHERE id = $1", [.text(request.dropID)]).count == 1
                throw dropExists ? PushStoreError.duplicateID(request.id) : PushStoreError.notFound("drop \(request.dropID)")
            }
        }
    }

    /// See `MateRequestRepository.answer`: decided on the row locked with `FOR UPDATE`.
    public func answer(id: String, accept: Bool, by userID: String, at now: Date) async throws -> MateRequestRecord {
        try await database.pool.transaction { db in
            guard
                var request = try db.query("SELECT \(Self.columns) FROM mate_requests WHERE id = $1 FOR UPDATE", [.text(id)])
                    .map(Self.record).first
            else { throw PushStoreError.notFound("mate request \(id)") }
            try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
            try db.run(
                "UPDATE mate_requests SET state = $2, answered_at = $3 WHERE id = $1",
                [.text(id), .text(request.state.rawValue), .integer(now.storeMillis)])
            return request
        }
    }

    /// See `MateRequestRepository.requests(forUser:role:)`.
    public func requests(forUser userID: String, role: MateRequestRole) async throws -> [MateRequestRecord] {
        let filter: String
        switch role {
        case .recipient: filter = "recipient_id = $1"
        case .sender: filter = "sender_id = $1"
        case .any: filter = "(recipient_id = $1 OR sender_id = $1)"
        }
        return try await database.pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM mate_requests WHERE \(filter) ORDER BY created_at, id", [.text(userID)])
                .map(Self.record)
        }
    }

    /// See `MateRequestRepository.requests(forDrop:)`.
    public func requests(forDrop dropID: String) async throws -> [MateRequestRecord] {
        try await database.pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM mate_requests WHERE drop_id = $1 ORDER BY created_at, id", [.text(dropID)])
                .map(Self.record)
        }
    }

    /// See `MateRequestRepository.request(id:)`.
    public func request(id: String) async throws -> MateRequestRecord? {
        try await database.pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM mate_requests WHERE id = $1", [.text(id)]).map(Self.record).first
        }
    }
}
