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
