internal import CLibPQ
import Foundation

/// Owns one `PGconn*` (closed with `PQfinish` in `deinit`) and its prepared statements.
///
/// Confined to the thread that opened it: libpq connections are not to be shared between threads, and
/// every blocking call here runs on a thread of the pool (`PostgresPool`), never on Swift's cooperative
/// pool. Each entry point checks it runs on its owner thread.
package final class PostgresConnection {
    let handle: OpaquePointer
    private let owner: pthread_t
    /// Prepared statements by SQL text: the server parses and plans each text once per connection.
    var prepared: [String: String] = [:]
    /// Fixed statements that run just before the next statement, in the same round trip: the open
    /// transaction's `BEGIN` and `executeWithNext`'s statements.
    var pending: [String] = []
    /// Channels to announce once the open `transaction` block commits (`announce`).
    private var announcements: [String] = []
    /// Channels announced by committed writes, not yet taken (`takeAnnouncements`).
    private var committedAnnouncements: [String] = []
    /// True while a `transaction` block's body runs.
    private var inBlock = false
    /// What the server's notices said that matters (see `Notices`).
    private let notices = Notices()
    /// True once the watchdog cut the connection (`withDeadline`).
    private var cut = false
    /// The connection's cancel key, made on first use by `withDeadline`.
    private var cancelKey: PostgresWatchdog.CancelKey?
    /// Where the round trips and statements sent are counted (the pool's), if anywhere.
    let traffic: PostgresTraffic?

    /// The notices of one connection, written by libpq's notice receiver on the connection's thread.
    private final class Notices {
        /// Set by a "canceling wait for synchronous replication" warning: the commit it follows is committed
        /// on this server only.
        var syncReplicationCancelled = false
    }

    /// Connects with `conninfo` (a `postgres://` URL or `key=value` pairs); throws a classified error. What
    /// it sends is counted in `traffic` when given.
    package init(conninfo: String, traffic: PostgresTraffic? = nil) throws(PostgresError) {
        self.traffic = traffic
        try Self.validate(conninfo)
        // Defaults first; anything the URL says overrides them (libpq expands `dbname` in place).
        let keywords = Self.defaults.map(\.key) + ["dbname"]
        let values = Self.defaults.map(\.value) + [conninfo]
        let connection = Self.withCStrings(keywords) { keywords in
            Self.withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection else {
            throw PostgresError(kind: .connectionFailed, function: "PQconnectdbParams", message: "out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError.connectFailure(message)
        }
        handle = connection
        owner = pthread_self()
        PQsetNoticeReceiver(
            connection,
            { argument, result in
                guard let argument, let result else { return }
                let notices = Unmanaged<Notices>.fromOpaque(argument).takeUnretainedValue()
                let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
                // "canceling wait for synchronous replication due to user request" (a cancel, statement_timeout),
                // "canceling the wait for synchronous replication and terminating connection due to …".
                if primary.contains("wait for synchronous replication") { notices.syncReplicationCancelled = true }
                // Like libpq's own receiver: the notice on stderr.
                if let text = PQresultErrorMessage(result) { _ = write(2, text, strlen(text)) }
            }, Unmanaged.passUnretained(notices).toOpaque())
    }

    deinit { PQfinish(handle) }

    func checkThread() {
        precondition(pthread_equal(owner, pthread_self()) != 0, "a PostgreSQL connection used off its own thread")
    }

    /// False once the connection broke (the pool then opens a new one).
    package var isUsable: Bool { !cut && PQstatus(handle) == CONNECTION_OK }

    /// Runs `body` within `timeout` (`PostgresWatchdog`): past it the server is asked to cancel the call, and
    /// `PostgresWatchdog.cutAfter` later the connection is cut. A call cancelled or cut then throws `timedOut`
    /// (a commit whose wait for the standby was cancelled: `commitNotReplicated`), both unavailable: what it
    /// sent may or may not have committed. Without a timeout, just runs `body`.
    package func withDeadline<T>(_ timeout: Duration?, _ body: () throws -> T) throws -> T {
        checkThread()
        guard let timeout, !cut else { return try body() }
        if cancelKey == nil { cancelKey = PostgresWatchdog.CancelKey(connection: handle) }
        let ticket = PostgresWatchdog.shared.register(socket: PQsocket(handle), cancelKey: cancelKey, timeout: timeout)
        let result = Result { try body() }
        PostgresWatchdog.shared.unregister(ticket)
        switch ticket.action {
        case .none: return try result.get()
        case .cancelled:
            // A cancel request that came too late could still hit this connection's next statement: the
            // connection is not reused.
            cut = true
            guard case .failure(let error) = result else { return try result.get() }
            if let failure = error as? PostgresError, failure.kind == .commitNotReplicated { throw failure }
        case .cut:
            cut = true
        }
        throw PostgresError(
            kind: .timedOut, function: "PostgresPool",
            message: "the server did not answer within \(timeout) (call cancelled; it may or may not have committed)")
    }

    /// True while a transaction block is open (or failed and not yet rolled back).
    package var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// The socket, for waiting on notifications.
    package var socket: Int32 { PQsocket(handle) }

    /// Runs SQL without parameters through the simple protocol (several statements allowed): for fixed
    /// statements only (BEGIN, COMMIT, LISTEN, migrations), never for values.
    package func execute(_ sql: String) throws(PostgresError) {
        checkThread()
        let text = (pending + [sql]).joined(separator: "; ")
        traffic?.record(statements: pending.count + 1)
        pending.removeAll()
        _ = try check(PQexec(handle, text), "PQexec")
    }

    /// Runs `sql`, a fixed statement without parameters, inside the open `transaction` just before the next
    /// statement and in the same round trip (for `SET LOCAL`), instead of a round trip of its own.
    package func executeWithNext(_ sql: String) {
        checkThread()
        pending.append(sql)
    }

    /// Runs `body` in `BEGIN … COMMIT` (at `isolation`), rolling back if it throws; a serialization
    /// failure or deadlock (40001, 40P01) runs the whole block again, up to `attempts` times in all.
    package func transaction<T>(
        isolation: PostgresIsolation = .readCommitted, attempts: Int = 5,
        _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        var attempt = 1
        // BEGIN goes out with the block's first statement (one round trip fewer); a block that runs no
        // statement sends nothing at all.
        let begin = "BEGIN ISOLATION LEVEL \(isolation.rawValue)"
        while true {
            pending = [begin]
            announcements.removeAll()
            inBlock = true
            do {
                let result = try body(self)
                inBlock = false
                if pending.first == begin {
                    pending.removeAll()
                    return result
                }
                // The block's last statement may have committed it already (`query(_:_:committing:)`).
                if inTransaction { try execute("COMMIT") }
                for channel in announcements where !committedAnnouncements.contains(channel) {
                    committedAnnouncements.append(channel)
                }
                announcements.removeAll()
                return result
            } catch {
                inBlock = false
                announcements.removeAll()
                pending.removeAll()
                if inTransaction && isUsable { try? execute("ROLLBACK") }
                if let failure = error as? PostgresError, failure.isRetryable, attempt < attempts {
                    attempt += 1
                    continue
                }
                throw error
            }
        }
    }

    /// Announces `channel` (a plain identifier) once what was just written is committed: after a statement
    /// that committed on its own, after the commit of the open `transaction` block (never if it rolls back),
    /// once per channel and block. Committed announcements wait in `takeAnnouncements()` for the pool, which
    /// hands them to the instance's listener to send (`PostgresListener.announce`).
    ///
    /// A `NOTIFY` inside the writing transaction would serialize the writers: PostgreSQL takes one lock for
    /// the commits of all transactions that notify and holds it until the commit's WAL flush.
    package func announce(_ channel: String) {
        checkThread()
        precondition(PostgresListener.isChannelName(channel))
        let target = inBlock ? \PostgresConnection.announcements : \PostgresConnection.committedAnnouncements
        if !self[keyPath: target].contains(channel) { self[keyPath: target].append(channel) }
    }

    /// The channels announced by what committed since the last call.
    package func takeAnnouncements() -> [String] {
        checkThread()
        defer { committedAnnouncements.removeAll() }
        return committedAnnouncements
    }

    /// Turns a `PGresult*` into rows, or into a thrown error carrying the SQLSTATE (the result is cleared).
    func check(_ result: OpaquePointer?, _ function: String) throws(PostgresError) -> PostgresRows? {
        guard let result else {
            throw PostgresError(
                kind: isUsable ? .statement : .connectionLost, function: function,
                message: String(cString: PQerrorMessage(handle)))
        }
        let replicationCancelled = notices.syncReplicationCancelled
        notices.syncReplicationCancelled = false
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            guard !replicationCancelled else {
                PQclear(result)
                throw PostgresError(
                    kind: .commitNotReplicated, function: function,
                    message: "canceling wait for synchronous replication: committed on this server, maybe not on its standby")
            }
            return PostgresRows(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let text = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
            PQclear(result)
            let message = text.isEmpty ? String(cString: PQerrorMessage(handle)) : text
            throw PostgresError(
                kind: isUsable ? .statement : .connectionLost, function: function, sqlState: state, message: message)
        }
    }

    /// Reads what arrived on the socket and returns the notifications received (channel, payload).
    package func consumeNotifications() throws(PostgresError) -> [(channel: String, payload: String)] {
        checkThread()
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(kind: .connectionLost, function: "PQconsumeInput", message: String(cString: PQerrorMessage(handle)))
        }
        var received: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            received.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return received
    }
}
