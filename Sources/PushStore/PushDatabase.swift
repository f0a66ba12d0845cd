/// The database behind a set of repositories, as a whole: what health checks and the start-up log need.
public protocol PushDatabase: Sendable {
    /// Outbox rows put back in the queue when the database opened (rows a crash had left in flight).
    var recoveredAtOpen: Int { get }
    /// Throws when the database does not answer (one cheap round trip).
    func ping() async throws
}
