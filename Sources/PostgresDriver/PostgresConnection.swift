internal import CLibPQ
import Foundation

/// Owns one `PGconn*` (closed with `PQfinish` in `deinit`) and its prepared statements.
///
/// Confined to the thread that opened it: libpq connections are not to be shared between threads, and
/// every blocking call here runs on a thread of the pool (`PostgresPool`), never on Swift's cooperative
/// pool. Each entry point checks it runs on its owner thread.
package final class PostgresConnection {
    private let handle: OpaquePointer
    private let owner: pthread_t
    /// Prepared statements by SQL text: the server parses and plans each text once per connection.
    private var prepared: [String: String] = [:]
    /// Fixed statements that run just before the next statement, in the same round trip: the open
    /// transaction's `BEGIN` and `executeWithNext`'s statements.
    private var pending: [String] = []
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
    private let traffic: PostgresTraffic?

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

    private func checkThread() {
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

    /// Runs `sql` with `parameters` ($1, $2, …) as a prepared statement; returns its rows (binary format).
    /// With `committing`, the last statement of a `transaction` block: the block commits in the same round
    /// trip (a failed statement commits nothing, and the block rolls back).
    @discardableResult
    package func query(_ sql: String, _ parameters: [PostgresValue] = [], committing: Bool = false) throws(PostgresError) -> PostgresRows {
        try queries([(sql, parameters)], committing: committing)[0]
    }

    /// Runs `statements` (each SQL with its parameters, as prepared statements) one after the other in one
    /// round trip (a pipeline), after the fixed statements waiting to go with the next one (`executeWithNext`,
    /// the open transaction's `BEGIN`); returns each one's rows. Each statement starts once the one before
    /// it ended, so a statement after one that waited for a lock reads what was committed meanwhile. The
    /// first failure is thrown, and the server skips what follows it. With `committing`, the last of a
    /// `transaction` block's statements: the block commits in the same round trip (a failed statement commits
    /// nothing, and the block rolls back).
    package func queries(
        _ statements: [(sql: String, parameters: [PostgresValue])], committing: Bool = false
    ) throws(PostgresError) -> [PostgresRows] {
        checkThread()
        precondition(!statements.isEmpty)
        let names = try statements.map { (statement) throws(PostgresError) -> String in try statementName(statement.sql) }
        let results: [OpaquePointer?]
        if pending.isEmpty && !committing && statements.count == 1 {
            traffic?.record(statements: 1)
            results = [Self.withWire(statements[0].parameters) { PQexecPrepared(handle, names[0], $0, $1, $2, $3, 1) }]
        } else {
            let before = pending
            pending.removeAll()
            let sends = zip(names, statements).map { name, statement in
                { (handle: OpaquePointer) -> Int32 in
                    Self.withWire(statement.parameters) { PQsendQueryPrepared(handle, name, $0, $1, $2, $3, 1) }
                }
            }
            results = try pipelined(before, sends, after: committing ? ["COMMIT"] : [])
        }
        var rows: [PostgresRows] = []
        rows.reserveCapacity(results.count)
        for (index, result) in results.enumerated() {
            let checked: PostgresRows?
            do {
                checked = try check(result, "PQexecPrepared")
            } catch {
                for later in results[(index + 1)...] { PQclear(later) }
                throw error
            }
            guard let checked else {
                for later in results[(index + 1)...] { PQclear(later) }
                throw PostgresError(kind: .statement, function: "PQexecPrepared", message: "no result")
            }
            rows.append(checked)
        }
        return rows
    }

    /// Calls `body` with `parameters` as libpq takes them: their count, values, lengths and formats. One
    /// buffer holds every value; the pointer array points into it.
    private static func withWire<R>(
        _ parameters: [PostgresValue],
        _ body: (Int32, [UnsafePointer<CChar>?], UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> R
    ) -> R {
        let wire = parameters.map(\.wire)
        var lengths: [Int32] = wire.map { Int32($0.bytes?.count ?? 0) }
        var formats: [Int32] = wire.map(\.format)
        let total = wire.reduce(0) { $0 + ($1.bytes?.count ?? 0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 1)
        defer { buffer.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(wire.count)
        var offset = 0
        for value in wire {
            guard let bytes = value.bytes else {
                pointers.append(nil)
                continue
            }
            let start = buffer.baseAddress! + offset
            bytes.withUnsafeBytes { if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: $0.count) } }
            pointers.append(UnsafePointer(start.assumingMemoryBound(to: CChar.self)))
            offset += bytes.count
        }
        return lengths.withUnsafeMutableBufferPointer { lengths in
            formats.withUnsafeMutableBufferPointer { formats in
                body(Int32(wire.count), pointers, lengths.baseAddress!, formats.baseAddress!)
            }
        }
    }

    /// Runs `sql` with `parameters`; returns the number of rows it changed.
    @discardableResult
    package func run(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> Int {
        try query(sql, parameters).affectedRows
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

    /// Sends `before` (statements without parameters), the statements `sends` queue and `after`, as one
    /// pipeline (one round trip), and returns the results of `sends`, to be checked and cleared by the
    /// caller; throws the first error of `before` or `after` that comes before any of theirs (the server
    /// skips what follows a failed statement).
    private func pipelined(
        _ before: [String], _ sends: [(OpaquePointer) -> Int32], after: [String]
    ) throws(PostgresError) -> [OpaquePointer?] {
        guard PQenterPipelineMode(handle) == 1 else { throw failure("PQenterPipelineMode") }
        let total = before.count + sends.count + after.count
        traffic?.record(statements: total)
        var sent = 0
        for index in 0..<total {
            let queued: Int32
            switch index - before.count {
            case ..<0: queued = PQsendQueryParams(handle, before[index], 0, nil, nil, nil, nil, 1)
            case let send where send < sends.count: queued = sends[send](handle)
            default: queued = PQsendQueryParams(handle, after[index - before.count - sends.count], 0, nil, nil, nil, nil, 1)
            }
            guard queued == 1 else { break }
            sent += 1
        }
        let synced = PQpipelineSync(handle) == 1
        // One result per statement sent, each followed by a null; then the sync point.
        var results: [OpaquePointer?] = []
        for _ in 0..<sent {
            results.append(PQgetResult(handle))
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        if synced, let sync = PQgetResult(handle) { PQclear(sync) }
        while PQexitPipelineMode(handle) != 1, isUsable, let extra = PQgetResult(handle) { PQclear(extra) }
        guard results.count == total else {
            for result in results { PQclear(result) }
            throw failure("PQsendQueryPrepared")
        }
        let main = Array(results[before.count..<(before.count + sends.count)])
        let mainFailed = main.contains { PQresultStatus($0) != PGRES_TUPLES_OK && PQresultStatus($0) != PGRES_COMMAND_OK }
        var firstError: PostgresError?
        for (index, result) in results.enumerated() where index < before.count || index >= before.count + sends.count {
            do {
                _ = try check(result, "PQexec")
            } catch {
                // A failure before the statements comes first; after them, their own error does.
                if firstError == nil && (index < before.count || !mainFailed) { firstError = error }
            }
        }
        if let firstError {
            for result in main { PQclear(result) }
            throw firstError
        }
        return main
    }

    /// The error libpq reports for the connection after `function` failed.
    private func failure(_ function: String) -> PostgresError {
        PostgresError(kind: isUsable ? .statement : .connectionLost, function: function, message: String(cString: PQerrorMessage(handle)))
    }

    /// The name of the prepared statement for `sql`, preparing it on first use.
    private func statementName(_ sql: String) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "push_\(prepared.count + 1)"
        traffic?.record(statements: 0)
        _ = try check(PQprepare(handle, name, sql, 0, nil), "PQprepare")
        prepared[sql] = name
        return name
    }

    /// Turns a `PGresult*` into rows, or into a thrown error carrying the SQLSTATE (the result is cleared).
    private func check(_ result: OpaquePointer?, _ function: String) throws(PostgresError) -> PostgresRows? {
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
