/// Why the store refused an operation. Nothing is written when one of these is thrown.
public enum PushStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A user id is not 1–64 characters of `[A-Za-z0-9_.-]`.
    case invalidUserID(String)
    /// A device token is not even-length lowercase hex of 64–200 characters.
    case invalidToken(String)
    /// A field has a bad value; `reason` says which rule it broke.
    case invalidField(field: String, reason: String)
    /// The encoded profile card is larger than the limit.
    case profileTooLarge(bytes: Int, limit: Int)
    /// A row with this id already exists.
    case duplicateID(String)
    /// No row with this id exists.
    case notFound(String)
    /// The user answering a mate request is not its recipient.
    case notRecipient(requestID: String, userID: String)
    /// The mate request was answered already; `state` is its current state.
    case alreadyAnswered(requestID: String, state: String)
    /// A drop can change state only while pending.
    case invalidTransition(dropID: String, from: String, to: String)
    /// The database cannot be reached (connection refused or lost, server shutting down); nothing was
    /// written, and the same request may succeed once it is back.
    case unavailable(String)
    /// The database refused a write for want of space (SQLite `SQLITE_FULL`, or an I/O error whose system
    /// error is `ENOSPC`/`EDQUOT`; PostgreSQL SQLSTATE 53100 `disk_full`): nothing was written, and the same
    /// request may succeed once space is freed. A PostgreSQL server that cannot write its WAL stops instead
    /// (a PANIC): that reaches callers as `unavailable`.
    case storageFull(String)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidUserID(let id):
            return "invalid user id \"\(id.prefix(80))\": must be 1-64 characters of A-Z a-z 0-9 _ . -"
        case .invalidToken(let why): return "invalid device token: \(why)"
        case .invalidField(let field, let reason): return "invalid \(field): \(reason)"
        case .profileTooLarge(let bytes, let limit):
            return "profile card too large: \(bytes) bytes encoded, limit \(limit)"
        case .duplicateID(let id): return "duplicate id \(id)"
        case .notFound(let what): return "not found: \(what)"
        case .notRecipient(let requestID, let userID):
            return "user \(userID) is not the recipient of mate request \(requestID)"
        case .alreadyAnswered(let requestID, let state): return "mate request \(requestID) already \(state)"
        case .invalidTransition(let dropID, let from, let to):
            return "drop \(dropID) cannot go from \(from) to \(to)"
        case .unavailable(let why): return "database unavailable: \(why)"
        case .storageFull(let why): return "database storage full: \(why)"
        }
    }
}
