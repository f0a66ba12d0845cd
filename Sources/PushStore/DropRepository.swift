import Foundation

/// Profile drops between two users.
public protocol DropRepository: Sendable {
    /// Stores a new drop (`duplicateID` if its id exists).
    func insert(_ drop: DropRecord) async throws
    /// Moves a pending drop to `state` at `now`; `invalidTransition` unless it is pending.
    func update(id: String, to state: DropState, at now: Date) async throws -> DropRecord
    /// Every pending drop, oldest first.
    func pending() async throws -> [DropRecord]
    /// The drop with `id`.
    func drop(id: String) async throws -> DropRecord?
}

/// `DropRepository` over a `PushStore`.
public struct SQLiteDropRepository: DropRepository {
    /// The store every call goes to.
    public let store: PushStore
    /// Wraps `store`.
    public init(store: PushStore) { self.store = store }
    /// See `DropRepository.insert`.
    public func insert(_ drop: DropRecord) async throws { try await store.insertDrop(drop) }
    /// See `DropRepository.update(id:to:at:)`.
    public func update(id: String, to state: DropState, at now: Date) async throws -> DropRecord {
        try await store.updateDrop(id: id, to: state, at: now)
    }
    /// See `DropRepository.pending`.
    public func pending() async throws -> [DropRecord] { try await store.pendingDrops() }
    /// See `DropRepository.drop(id:)`.
    public func drop(id: String) async throws -> DropRecord? { try await store.drop(id: id) }
}
