import Foundation

/// Mate requests made when drops match.
public protocol MateRequestRepository: Sendable {
    /// Stores a new request; its drop must exist (`notFound`), its id must be new (`duplicateID`).
    func insert(_ request: MateRequestRecord) async throws
    /// The recipient accepts or declines; `notRecipient` / `alreadyAnswered` otherwise.
    func answer(id: String, accept: Bool, by userID: String, at now: Date) async throws -> MateRequestRecord
    /// The user's requests in `role`, oldest first.
    func requests(forUser userID: String, role: MateRequestRole) async throws -> [MateRequestRecord]
    /// The requests of one drop, oldest first.
    func requests(forDrop dropID: String) async throws -> [MateRequestRecord]
    /// The request with `id`.
    func request(id: String) async throws -> MateRequestRecord?
}
