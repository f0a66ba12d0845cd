import Foundation

extension PushStore {
    private static let mateColumns = "id, drop_id, sender_id, recipient_id, state, created_at, answered_at"

    private static func mateRow(_ row: SQLiteStatement) -> MateRequestRecord {
        MateRequestRecord(id: row.string(at: 0), dropID: row.string(at: 1), senderID: row.string(at: 2),
                          recipientID: row.string(at: 3),
                          state: MateRequestState(rawValue: row.string(at: 4)) ?? .declined,
                          createdAt: Date(storeMillis: row.int64(at: 5)),
                          answeredAt: row.optionalInt64(at: 6).map(Date.init(storeMillis:)))
    }

    /// Stores a new mate request; its drop must exist (`notFound`) and its id must be new (`duplicateID`).
    public func insertMateRequest(_ request: MateRequestRecord) throws {
        try request.validate()
        try write { db in
            guard try drop(id: request.dropID) != nil else { throw PushStoreError.notFound("drop \(request.dropID)") }
            guard try mateRequest(id: request.id) == nil else { throw PushStoreError.duplicateID(request.id) }
            try db.run("INSERT INTO mate_requests (\(Self.mateColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", [
                .text(request.id), .text(request.dropID), .text(request.senderID), .text(request.recipientID),
                .text(request.state.rawValue), .integer(request.createdAt.storeMillis),
                request.answeredAt.map { .integer($0.storeMillis) } ?? .null,
            ])
        }
    }

    /// Accepts or declines a pending request on behalf of its recipient; returns the answered request.
    public func answerMateRequest(id: String, accept: Bool, by userID: String, at now: Date) throws -> MateRequestRecord {
        try write { db in
            guard var request = try mateRequest(id: id) else { throw PushStoreError.notFound("mate request \(id)") }
            try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
            try db.run("UPDATE mate_requests SET state = ?2, answered_at = ?3 WHERE id = ?1", [
                .text(id), .text(request.state.rawValue), .integer(now.storeMillis),
            ])
            return request
        }
    }

    /// The user's requests in `role`, oldest first.
    public func mateRequests(forUser userID: String, role: MateRequestRole = .any) throws -> [MateRequestRecord] {
        let filter: String
        switch role {
        case .recipient: filter = "recipient_id = ?1"
        case .sender: filter = "sender_id = ?1"
        case .any: filter = "(recipient_id = ?1 OR sender_id = ?1)"
        }
        return try connection.query("SELECT \(Self.mateColumns) FROM mate_requests WHERE \(filter) ORDER BY created_at, id",
                                    [.text(userID)], row: Self.mateRow)
    }

    /// The requests made for one drop, oldest first.
    public func mateRequests(forDrop dropID: String) throws -> [MateRequestRecord] {
        try connection.query("SELECT \(Self.mateColumns) FROM mate_requests WHERE drop_id = ?1 ORDER BY created_at, id",
                             [.text(dropID)], row: Self.mateRow)
    }

    /// The request with `id`, or nil.
    public func mateRequest(id: String) throws -> MateRequestRecord? {
        try connection.query("SELECT \(Self.mateColumns) FROM mate_requests WHERE id = ?1", [.text(id)],
                             row: Self.mateRow).first
    }
}
