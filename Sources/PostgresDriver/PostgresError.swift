import Foundation

/// An error from PostgreSQL or libpq: what failed, the SQLSTATE when the server sent one, and its message.
///
/// Connection failures carry no SQLSTATE in libpq's API, so `kind` classifies them from the message (libpq's
/// and the server's, which are English unless a locale translates them; a translated one is still reported,
/// as `connectionFailed`): a refused connection, a rejected password and an unknown database are told apart
/// for the start-up line an operator reads.
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Equatable {
        /// The URL could not be parsed (`PQconninfoParse`).
        case badURL = "bad URL"
        /// Nothing accepted the connection (no server at that address and port, or no such socket).
        case connectionRefused = "connection refused"
        /// The server rejected the credentials (SQLSTATE 28P01 / 28000).
        case authenticationFailed = "authentication failed"
        /// The database named in the URL does not exist (SQLSTATE 3D000).
        case unknownDatabase = "unknown database"
        /// Any other failure to connect (host not found, timeout, TLS, too many clients …).
        case connectionFailed = "connection failed"
        /// The connection broke while in use.
        case connectionLost = "connection lost"
        /// The server refused a statement; `sqlState` says why.
        case statement
        /// The database's schema is newer than this build.
        case schemaTooNew = "schema too new"
        /// A commit whose wait for the synchronous standby was cancelled ("canceling wait for synchronous
        /// replication"): committed on the primary, but maybe not on the standby, so a failover now may lose
        /// it. Reported as unavailable (never as a success, never as "not stored").
        case commitNotReplicated = "commit not replicated"
        /// The server did not answer a call within the pool's deadline (a primary stopped without a reset,
        /// a cut network): the connection was cut, and what the call sent may or may not have committed.
        case timedOut = "no answer"
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The libpq function (or step) that failed.
    public var function: String
    /// The five-character SQLSTATE (e.g. `40001`), when the server sent one.
    public var sqlState: String?
    /// The server's or libpq's message, on one line.
    public var message: String

    /// An error from its parts.
    public init(kind: Kind, function: String, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.function = function
        self.sqlState = sqlState
        self.message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// True for `serialization_failure` (40001) and `deadlock_detected` (40P01): the transaction may be run again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// True when the database could not be reached or went away (connection failures, SQLSTATE class 08,
    /// the server shutting down or refusing connections, too many connections): the same request may
    /// succeed once it is back. The repositories report these as `PushStoreError.unavailable`.
    public var isUnavailable: Bool {
        switch kind {
        case .connectionRefused, .connectionFailed, .connectionLost, .authenticationFailed, .unknownDatabase,
            .commitNotReplicated, .timedOut:
            return true
        case .badURL, .schemaTooNew: return false
        case .statement:
            if isReadOnly { return true }
            guard let sqlState else { return false }
            return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(sqlState)
        }
    }

    /// True when the server is a standby or was demoted: `read_only_sql_transaction` (25006, "cannot execute
    /// INSERT in a read-only transaction"). After a failover a connection may be left on the old primary
    /// turned standby; the pool drops it and connects again (libpq's `target_session_attrs=read-write`
    /// picks the new primary).
    public var isReadOnly: Bool {
        sqlState == "25006" || (sqlState == nil && message.contains("in a read-only transaction"))
    }

    /// True for `disk_full` (53100): the server could not extend a file (a table, an index, a temporary
    /// file) for want of space. The repositories report it as `PushStoreError.storageFull`. A server that
    /// cannot write its WAL does not answer this: it stops (PANIC), which reaches the client as a lost
    /// connection (`isUnavailable`).
    public var isStorageFull: Bool { kind == .statement && sqlState == "53100" }

    /// True for `unique_violation` (23505).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// True for `foreign_key_violation` (23503).
    public var isForeignKeyViolation: Bool { sqlState == "23503" }

    /// One line naming the kind, the function and the SQLSTATE.
    public var description: String {
        let state = sqlState.map { " [\($0)]" } ?? ""
        let what = kind == .statement ? "" : "\(kind.rawValue): "
        return "PostgreSQL \(what)\(function) failed\(state): \(message)"
    }

    /// Classifies a failed connection attempt from libpq's message.
    package static func connectFailure(_ message: String) -> PostgresError {
        let kind: Kind
        let state: String?
        if message.contains("password authentication failed") || message.contains("no password supplied")
            || message.contains("authentication failed")
        {
            (kind, state) = (.authenticationFailed, "28P01")
        } else if message.contains("database \"") && message.contains("does not exist") {
            (kind, state) = (.unknownDatabase, "3D000")
        } else if message.contains("Connection refused") || message.contains("No such file or directory") {
            (kind, state) = (.connectionRefused, "08001")
        } else {
            (kind, state) = (.connectionFailed, "08001")
        }
        return PostgresError(kind: kind, function: "PQconnectdbParams", sqlState: state, message: message)
    }
}
