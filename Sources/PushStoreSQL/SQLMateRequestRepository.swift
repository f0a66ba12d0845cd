import Foundation
import PushStore

/// `MateRequestRepository` on either SQL database: the `mate_requests` table. New requests are stored by
/// the drop rules' transaction, each database in its own statement (`insert`, in the backends' files).
struct SQLMateRequestRepository<Database: SQLDropDatabase>: MateRequestRepository {
    /// The database holding the table.
    let database: Database

    private static var columns: String { MateRequestColumn.selectList }

    /// See `MateRequestRepository.answer`: decided on the row read in the transaction (locked with
    /// `FOR UPDATE` on PostgreSQL); the answer, its outbox rows and its webhook event in one transaction.
    func answer(
        id: String, accept: Bool, by userID: String, at now: Date,
        pushes: @Sendable (_ answered: MateRequestRecord) -> [OutboxItem]
    ) async throws -> MateRequestRecord {
        // The transaction ends before `answer` returns, so `pushes` is never called after it.
        try await withoutActuallyEscaping(pushes) { pushes in
            try await database.inTransaction { db in
                guard
                    var request = try db.query(
                        "SELECT \(Self.columns) FROM mate_requests WHERE id = ?1\(db.dialect.forUpdate)", [.text(id)],
                        row: MateRequestRecord.init(row:)
                    ).first
                else { throw PushStoreError.notFound("mate request \(id)") }
                try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
                let items = pushes(request)
                for item in items { try item.validate() }
                try db.run(
                    "UPDATE mate_requests SET state = ?2, answered_at = ?3 WHERE id = ?1",
                    [.text(id), .text(request.state.rawValue), .date(now)])
                if !items.isEmpty { try database.enqueue(items, db) }
                try WebhookQueue.record([WebhookEvents.answered(request)], db)
                return request
            }
        }
    }

    /// See `MateRequestRepository.requests(forUser:role:)`.
    func requests(forUser userID: String, role: MateRequestRole) async throws -> [MateRequestRecord] {
        let filter: String
        switch role {
        case .recipient: filter = "recipient_id = ?1"
        case .sender: filter = "sender_id = ?1"
        case .any: filter = "(recipient_id = ?1 OR sender_id = ?1)"
        }
        return try await database.query(
            "SELECT \(Self.columns) FROM mate_requests WHERE \(filter) ORDER BY created_at, id", [.text(userID)],
            row: MateRequestRecord.init(row:))
    }

    /// See `MateRequestRepository.requests(forDrop:)`.
    func requests(forDrop dropID: String) async throws -> [MateRequestRecord] {
        try await database.onConnection { try Self.requests(forDrop: dropID, $0) }
    }

    /// The requests of one drop, read on `db` (also inside the drop rules' transaction).
    static func requests(forDrop dropID: String, _ db: some SQLSession) throws -> [MateRequestRecord] {
        try db.query(
            "SELECT \(columns) FROM mate_requests WHERE drop_id = ?1 ORDER BY created_at, id", [.text(dropID)],
            row: MateRequestRecord.init(row:))
    }

    /// See `MateRequestRepository.request(id:)`.
    func request(id: String) async throws -> MateRequestRecord? {
        try await database.onConnection { try Self.request(id: id, $0) }
    }

    /// The request with `id`, read on `db`.
    static func request(id: String, _ db: some SQLSession) throws -> MateRequestRecord? {
        try db.row(of: "mate_requests", id: id, columns: columns, MateRequestRecord.init(row:))
    }

    /// See `MateRequestRepository.purgeAnswered`.
    func purgeAnswered(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.purge(
            "mate_requests", key: "id", olderThan: date, by: "answered_at", where: "state <> 'pending'", limit: limit)
    }
}

/// The mate requests of a SQLite database.
typealias SQLiteMateRequestRepository = SQLMateRequestRepository<SQLiteDatabase>
/// The mate requests of a PostgreSQL database.
typealias PostgresMateRequestRepository = SQLMateRequestRepository<PostgresDatabase>
