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

/// `MateRequestRepository` over a `PushStore`.
public struct SQLiteMateRequestRepository: MateRequestRepository {
    /// The store every call goes to.
    public let store: PushStore
    /// Wraps `store`.
    public init(store: PushStore) { self.store = store }
    /// See `MateRequestRepository.insert`.
    public func insert(_ request: MateRequestRecord) async throws { try await store.insertMateRequest(request) }
    /// See `MateRequestRepository.answer`.
    public func answer(id: String, accept: Bool, by userID: String, at now: Date) async throws -> MateRequestRecord {
        try await store.answerMateRequest(id: id, accept: accept, by: userID, at: now)
    }
    /// See `MateRequestRepository.requests(forUser:role:)`.
    public func requests(forUser userID: String, role: MateRequestRole) async throws -> [MateRequestRecord] {
        try await store.mateRequests(forUser: userID, role: role)
    }
    /// See `MateRequestRepository.requests(forDrop:)`.
    public func requests(forDrop dropID: String) async throws -> [MateRequestRecord] {
        try await store.mateRequests(forDrop: dropID)
    }
    /// See `MateRequestRepository.request(id:)`.
    public func request(id: String) async throws -> MateRequestRecord? { try await store.mateRequest(id: id) }
}
