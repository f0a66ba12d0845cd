/// The database behind a set of repositories, as a whole: what health checks and the start-up log need.
public protocol PushDatabase: Sendable {
    /// Outbox rows put back in the queue when the database opened (rows a crash had left in flight).
    var recoveredAtOpen: Int { get }
    /// Throws when the database does not answer (one cheap round trip).
    func ping() async throws
    /// What its writes showed of its room to write (refusals for space); nil for a store that keeps
    /// nothing on disk.
    var writeHealth: StoreWriteHealth? { get }
}

extension PushDatabase {
    /// None by default: a store in memory is never refused a write for space.
    public var writeHealth: StoreWriteHealth? { nil }
}
