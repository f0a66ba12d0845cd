public import Foundation
public import PushStore
import SQLiteDriver

/// `MateRequestRepository` on a `SQLiteDatabase`: the `mate_requests` table.
public struct SQLiteMateRequestRepository: MateRequestRepository {
    /// The database holding the table.
    public let database: SQLiteDatabase
    /// The repository over `database`.
    public init(database: SQLiteDatabase) { self.database = database }

    /// The columns of the table (`MateRequestColumn`, shared by both SQL backends).
    typealias Column = MateRequestColumn

    private static let columns = Column.selectList

    private static func record(_ row: SQLiteStatement) -> MateRequestRecord {
        MateRequestRecord(row: row)
    }

    /// Stores new mate requests on `db`, inside the caller's transaction (the drop rules' match), in one
    /// INSERT. The primary key and the drop's foreign key decide; only when one refuses are the requests
    /// looked up, to name the first one refused and why (`notFound` for a missing drop, `duplicateID`).
    static func insert(_ requests: [MateRequestRecord], _ db: SQLiteConnection) throws {
        guard !requests.isEmpty else { return }
        for request in requests { try request.validate() }
        var bindings: [SQLiteValue] = []
        bindings.reserveCapacity(requests.count * insertParameters)
        for request in requests {
            bindings += [
                .text(request.id), .text(request.dropID), .text(request.senderID), .text(request.recipientID),
                .text(request.state.rawValue), .integer(request.createdAt.storeMillis),
                request.answeredAt.map { .integer($0.storeMillis) } ?? .null,
            ]
        }
        do {
            try db.run(requests.count == 2 ? insertPairSQL : insertSQL(rows: requests.count), bindings)
        } catch {
            guard error.isConstraintViolation else { throw error }
            // The statement alone was undone (the default conflict resolution), so this reads what was there.
            var seen = Set<String>()
            for request in requests {
                guard try SQLiteDropRepository.drop(id: request.dropID, db) != nil else {
                    throw PushStoreError.notFound("drop \(request.dropID)")
                }
                guard try Self.request(id: request.id, db) == nil, seen.insert(request.id).inserted else {
                    throw PushStoreError.duplicateID(request.id)
                }
            }
            throw error
        }
    }

    private static let insertParameters = 7

    /// The INSERT of `rows` requests, `insertParameters` placeholders each.
    private static func insertSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            "(" + SQLiteConnection.placeholders(row: row, perRow: insertParameters).joined(separator: ", ") + ")"
        }
        return "INSERT INTO mate_requests (\(columns)) VALUES \(values.joined(separator: ", "))"
    }

    /// A match's two requests: the text is built once.
    private static let insertPairSQL = insertSQL(rows: 2)

    /// See `MateRequestRepository.answer`: the answer and its outbox rows in one transaction.
    public func answer(
        id: String, accept: Bool, by userID: String, at now: Date,
        pushes: @Sendable (_ answered: MateRequestRecord) -> [OutboxItem]
    ) async throws -> MateRequestRecord {
        try await database.write { db in
            guard var request = try Self.request(id: id, db) else {
                throw PushStoreError.notFound("mate request \(id)")
            }
            try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
            let items = pushes(request)
            for item in items { try item.validate() }
            try db.run(
                "UPDATE mate_requests SET state = ?2, answered_at = ?3 WHERE id = ?1",
                [.text(id), .text(request.state.rawValue), .integer(now.storeMillis)])
            if !items.isEmpty { try SQLiteOutboxRepository.insert(items, db) }
            try SQLiteWebhookRepository.record([WebhookEvents.answered(request)], SQLiteSession(connection: db))
            return request
        }
    }

    /// See `MateRequestRepository.requests(forUser:role:)`.
    public func requests(forUser userID: String, role: MateRequestRole) async throws -> [MateRequestRecord] {
        let filter: String
        switch role {
        case .recipient: filter = "recipient_id = ?1"
        case .sender: filter = "sender_id = ?1"
        case .any: filter = "(recipient_id = ?1 OR sender_id = ?1)"
        }
        return try await database.perform { db in
            try db.query(
                "SELECT \(Self.columns) FROM mate_requests WHERE \(filter) ORDER BY created_at, id",
                [.text(userID)], row: Self.record)
        }
    }

    /// See `MateRequestRepository.requests(forDrop:)`.
    public func requests(forDrop dropID: String) async throws -> [MateRequestRecord] {
        try await database.perform { try Self.requests(forDrop: dropID, $0) }
    }

    /// The requests of one drop, read on `db` (also inside the drop rules' transaction).
    static func requests(forDrop dropID: String, _ db: SQLiteConnection) throws -> [MateRequestRecord] {
        try db.query(
            forDropSQL,
            [.text(dropID)], row: record)
    }

    /// See `MateRequestRepository.request(id:)`.
    public func request(id: String) async throws -> MateRequestRecord? {
        try await database.perform { try Self.request(id: id, $0) }
    }

    /// See `MateRequestRepository.purgeAnswered`.
    public func purgeAnswered(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            try db.run(
                """
                DELETE FROM mate_requests WHERE id IN (SELECT id FROM mate_requests
                    WHERE state <> 'pending' AND answered_at < ?1 LIMIT ?2)
                """, [.integer(date.storeMillis), .integer(Int64(max(0, limit)))])
        }
    }

    private static func request(id: String, _ db: SQLiteConnection) throws -> MateRequestRecord? {
        try db.query(byIDSQL, [.text(id)], row: record).first
    }

    private static let forDropSQL = "SELECT \(columns) FROM mate_requests WHERE drop_id = ?1 ORDER BY created_at, id"
    private static let byIDSQL = "SELECT \(columns) FROM mate_requests WHERE id = ?1"
}
