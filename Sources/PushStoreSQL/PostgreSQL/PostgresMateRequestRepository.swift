public import Foundation
import PostgresDriver
public import PushStore

/// `MateRequestRepository` on a `PostgresDatabase`: the `mate_requests` table.
public struct PostgresMateRequestRepository: MateRequestRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    /// The columns of the table (`MateRequestColumn`, shared by both SQL backends).
    typealias Column = MateRequestColumn

    static let columns = Column.selectList

    static func record(_ row: PostgresRow) -> MateRequestRecord {
        MateRequestRecord(row: row)
    }

    /// The insert of mate requests given as arrays ($1 … $7, in `columns`' order), each only if its drop
    /// exists (found by key, in a transaction that joins by lookup) and its id is new; returns the ids stored.
    static let insertSQL = """
        INSERT INTO mate_requests (\(columns))
        SELECT r.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
            AS r (id, drop_id, sender_id, recipient_id, state, created_at, answered_at)
        WHERE EXISTS (SELECT 1 FROM drops d WHERE d.id = r.drop_id)
        ON CONFLICT (id) DO NOTHING
        RETURNING id
        """

    /// Stores new mate requests on `db` in one statement, inside the caller's transaction (the drop rules'
    /// match): each one's drop must exist (`notFound`), its id must be new (`duplicateID`). Throws when
    /// either fails, which undoes the caller's transaction with whatever it wrote.
    static func insert(_ requests: [MateRequestRecord], _ db: PostgresConnection) throws {
        guard !requests.isEmpty else { return }
        for request in requests { try request.validate() }
        let stored = try db.query(
            insertSQL,
            [
                .textArray(requests.map(\.id)), .textArray(requests.map(\.dropID)), .textArray(requests.map(\.senderID)),
                .textArray(requests.map(\.recipientID)), .textArray(requests.map(\.state.rawValue)),
                .integerArray(requests.map { $0.createdAt.storeMillis }), .integerArray(requests.map { $0.answeredAt?.storeMillis }),
            ]
        ).map { $0.string(at: 0) }
        // Any left out? Name the first, by the reason it was.
        guard let missing = requests.first(where: { !stored.contains($0.id) }) else { return }
        guard try db.query("SELECT 1 FROM drops WHERE id = $1", [.text(missing.dropID)]).count == 1 else {
            throw PushStoreError.notFound("drop \(missing.dropID)")
        }
        throw PushStoreError.duplicateID(missing.id)
    }

    /// See `MateRequestRepository.answer`: decided on the row locked with `FOR UPDATE`; the answer and its
    /// outbox rows in one transaction.
    public func answer(
        id: String, accept: Bool, by userID: String, at now: Date,
        pushes: @Sendable (_ answered: MateRequestRecord) -> [OutboxItem]
    ) async throws -> MateRequestRecord {
        // The transaction ends before `answer` returns, so `pushes` is never called after it.
        try await withoutActuallyEscaping(pushes) { pushes in
            try await database.transaction { db in
                guard
                    var request = try db.query("SELECT \(Self.columns) FROM mate_requests WHERE id = $1 FOR UPDATE", [.text(id)])
                        .map(Self.record).first
                else { throw PushStoreError.notFound("mate request \(id)") }
                try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
                let items = pushes(request)
                for item in items { try item.validate() }
                try db.run(
                    "UPDATE mate_requests SET state = $2, answered_at = $3 WHERE id = $1",
                    [.text(id), .text(request.state.rawValue), .integer(now.storeMillis)])
                try PostgresOutboxRepository.insert(items, db)
                try PostgresWebhookRepository.record([WebhookEvents.answered(request)], PostgresSession(connection: db))
                return request
            }
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
        return try await database.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM mate_requests WHERE \(filter) ORDER BY created_at, id", [.text(userID)])
                .map(Self.record)
        }
    }

    /// See `MateRequestRepository.requests(forDrop:)`.
    public func requests(forDrop dropID: String) async throws -> [MateRequestRecord] {
        try await database.withConnection { try Self.requests(forDrop: dropID, $0) }
    }

    /// The requests of one drop, read on `db` (also inside the drop rules' transaction).
    static func requests(forDrop dropID: String, _ db: PostgresConnection) throws -> [MateRequestRecord] {
        try db.query("SELECT \(columns) FROM mate_requests WHERE drop_id = $1 ORDER BY created_at, id", [.text(dropID)]).map(record)
    }

    /// See `MateRequestRepository.request(id:)`.
    public func request(id: String) async throws -> MateRequestRecord? {
        try await database.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM mate_requests WHERE id = $1", [.text(id)]).map(Self.record).first
        }
    }

    /// See `MateRequestRepository.purgeAnswered`.
    public func purgeAnswered(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.withConnection { db in
            try db.run(
                """
                DELETE FROM mate_requests WHERE id IN (SELECT id FROM mate_requests
                    WHERE state <> 'pending' AND answered_at < $1 LIMIT $2)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }
}
