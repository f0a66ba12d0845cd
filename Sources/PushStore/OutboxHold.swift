public import Foundation

/// One claim an instance still holds: a row it is sending, under the attempt its claim counted.
public struct OutboxHold: Sendable, Hashable {
    /// The row id.
    public var id: String
    /// The row's attempt count when it was claimed (the fencing token, as in `OutboxCompletion`).
    public var attempt: Int

    /// The claim of row `id` that made its attempt count `attempt`.
    public init(id: String, attempt: Int) {
        self.id = id
        self.attempt = attempt
    }
}

extension OutboxRepository {
    /// Stores whose claims never lapse (one process at a time: SQLite, in memory) have nothing to renew.
    public var leaseRenewalInterval: Duration? { nil }

    /// Stores whose claims never lapse renew nothing.
    public func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String> { [] }
}
