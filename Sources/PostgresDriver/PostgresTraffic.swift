import Synchronization

/// What the connections of one pool sent to the server: round trips (each send that waits for the server's
/// answer, a pipeline of several statements being one) and statements (each SQL statement sent, the fixed
/// ones that ride along with another included; preparing a statement is a round trip, not a statement), and
/// the bytes of the prepared statements' parameters (as sent, in their wire form).
///
/// Read by tests and benchmarks to count what an operation costs (`PostgresDatabase.traffic`).
package final class PostgresTraffic: Sendable {
    private let sentRoundTrips = Atomic<Int>(0)
    private let sentStatements = Atomic<Int>(0)
    private let sentParameterBytes = Atomic<Int>(0)

    package init() {}

    /// Round trips so far.
    package var roundTrips: Int { sentRoundTrips.load(ordering: .relaxed) }
    /// Statements so far.
    package var statements: Int { sentStatements.load(ordering: .relaxed) }
    /// Parameter bytes so far.
    package var parameterBytes: Int { sentParameterBytes.load(ordering: .relaxed) }

    /// Counts one round trip that carried `statements` statements.
    func record(statements: Int) {
        sentRoundTrips.add(1, ordering: .relaxed)
        sentStatements.add(statements, ordering: .relaxed)
    }

    /// Counts `bytes` of a statement's parameters.
    func record(parameterBytes bytes: Int) {
        sentParameterBytes.add(bytes, ordering: .relaxed)
    }
}
