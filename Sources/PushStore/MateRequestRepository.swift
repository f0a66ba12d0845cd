public import Foundation

/// Mate requests, made by `DropRepository.report` when drops match.
public protocol MateRequestRepository: Sendable {
    /// The recipient accepts or declines at `now`; the answer and the outbox rows `pushes` makes for it (the
    /// push back to the sender; called inside the transaction, so no I/O) are stored together. Throws
    /// `notFound`, `notRecipient` or `alreadyAnswered` (then nothing is stored).
    func answer(
        id: String, accept: Bool, by userID: String, at now: Date,
        pushes: @Sendable (_ answered: MateRequestRecord) -> [OutboxItem]
    ) async throws -> MateRequestRecord
    /// The user's requests in `role`, oldest first.
    func requests(forUser userID: String, role: MateRequestRole) async throws -> [MateRequestRecord]
    /// The requests of one drop, oldest first.
    func requests(forDrop dropID: String) async throws -> [MateRequestRecord]
    /// The request with `id`.
    func request(id: String) async throws -> MateRequestRecord?
    /// Deletes up to `limit` answered requests answered before `date`; returns how many.
    func purgeAnswered(olderThan date: Date, limit: Int) async throws -> Int
}
