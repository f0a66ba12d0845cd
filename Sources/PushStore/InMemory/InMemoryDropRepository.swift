import Foundation

/// `DropRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryDropRepository: DropRepository {
    private var drops: [String: DropRecord] = [:]

    /// An empty repository.
    public init() {}

    /// See `DropRepository.insert`.
    public func insert(_ drop: DropRecord) throws {
        try drop.validate()
        guard drops[drop.id] == nil else { throw PushStoreError.duplicateID(drop.id) }
        drops[drop.id] = DropRecord(
            id: drop.id, initiatorID: drop.initiatorID, peerID: drop.peerID, state: drop.state,
            createdAt: drop.createdAt, expiresAt: drop.expiresAt,
            matchedAt: drop.matchedAt, closedAt: drop.closedAt)  // store precision
    }

    /// See `DropRepository.update(id:to:at:)`.
    public func update(id: String, to state: DropState, at now: Date) throws -> DropRecord {
        guard var drop = drops[id] else { throw PushStoreError.notFound("drop \(id)") }
        try DropTransition.apply(state, at: now, to: &drop)
        drops[id] = drop
        return drop
    }

    /// See `DropRepository.pending`.
    public func pending() -> [DropRecord] {
        drops.values.filter { $0.state == .pending }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// See `DropRepository.drop(id:)`.
    public func drop(id: String) -> DropRecord? { drops[id] }
}
