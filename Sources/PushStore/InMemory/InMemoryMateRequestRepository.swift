import Foundation

/// `MateRequestRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryMateRequestRepository: MateRequestRepository {
    private var requests: [String: MateRequestRecord] = [:]
    private let drops: any DropRepository

    /// An empty repository whose requests must name a drop in `drops` (the SQLite foreign key).
    public init(drops: any DropRepository) {
        self.drops = drops
    }

    /// See `MateRequestRepository.insert`.
    public func insert(_ request: MateRequestRecord) async throws {
        try request.validate()
        guard try await drops.drop(id: request.dropID) != nil else {
            throw PushStoreError.notFound("drop \(request.dropID)")
        }
        guard requests[request.id] == nil else { throw PushStoreError.duplicateID(request.id) }
        requests[request.id] = MateRequestRecord(
            id: request.id, dropID: request.dropID, senderID: request.senderID,
            recipientID: request.recipientID, state: request.state,
            createdAt: request.createdAt, answeredAt: request.answeredAt)
    }

    /// See `MateRequestRepository.answer`.
    public func answer(id: String, accept: Bool, by userID: String, at now: Date) throws -> MateRequestRecord {
        guard var request = requests[id] else { throw PushStoreError.notFound("mate request \(id)") }
        try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
        requests[id] = request
        return request
    }

    /// See `MateRequestRepository.requests(forUser:role:)`.
    public func requests(forUser userID: String, role: MateRequestRole) -> [MateRequestRecord] {
        sorted(
            requests.values.filter { request in
                switch role {
                case .recipient: return request.recipientID == userID
                case .sender: return request.senderID == userID
                case .any: return request.recipientID == userID || request.senderID == userID
                }
            })
    }

    /// See `MateRequestRepository.requests(forDrop:)`.
    public func requests(forDrop dropID: String) -> [MateRequestRecord] {
        sorted(requests.values.filter { $0.dropID == dropID })
    }

    /// See `MateRequestRepository.request(id:)`.
    public func request(id: String) -> MateRequestRecord? { requests[id] }

    private func sorted(_ list: [MateRequestRecord]) -> [MateRequestRecord] {
        list.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }
}
