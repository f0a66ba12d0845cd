import Foundation
import PostgresDriver
import PushStore

/// Whose clock the PostgreSQL repositories read when they compare or write a time that other instances
/// compare too: lease deadlines, due times of claims and retries, enqueue times, drop windows, idempotency
/// expiry and push expirations.
///
/// Instances sharing a database each have their own clock, and no two agree exactly. With `.database`
/// (the default) every such time is the database server's: an instance whose clock runs minutes ahead can
/// neither take over a row whose holder is alive, nor one behind ignore a dead holder's rows, and an
/// expiry one instance writes is the expiry every other one reads.
///
/// The time is the start of the statement's transaction (`now()`, `transaction_timestamp()`), in ms since
/// 1970, not `clock_timestamp()`:
/// - every statement of one transaction (a claim picks, then claims, then settles expired rows) sees one
///   instant, as one `now` passed from Swift did;
/// - it is the same for every row (a stable expression, evaluated once per scan), so the planner can still
///   read the due indexes up to it;
/// - the transactions are short, and a start a little in the past only errs on the safe side: a lease
///   written from it ends a little earlier for its holder (who renews at a third of the lease), and a lease
///   compared with it is taken over a little later, never before it ends.
///
/// `.caller` compares with the `now` each call is given (the instance's clock in the worker): for tests
/// and tools that step time by hand. It is what every instance did before, and it is wrong for several
/// instances whose clocks differ.
public enum PostgresClock: Sendable, Equatable {
    /// The database server's clock (`now()`): what instances sharing the database must use.
    case database
    /// The `now` passed to each call.
    case caller

    /// SQL for now in ms since 1970: the bigint parameter `parameter` unless it is NULL (`.database` passes
    /// NULL: `nowParameter`), else the database's time (see the type).
    static func millis(_ parameter: String) -> String {
        "coalesce(\(parameter)::bigint, \(databaseMillis))"
    }

    /// SQL for now in whole seconds since 1970 (what push expirations are compared with), from a bigint
    /// parameter as `millis(_:)`.
    static func seconds(_ parameter: String) -> String {
        "coalesce(\(parameter)::bigint, floor(extract(epoch from now()))::bigint)"
    }

    /// The database's time in ms since 1970, at the start of the transaction.
    static let databaseMillis = "(extract(epoch from now()) * 1000)::bigint"

    /// The value for a `millis(_:)` parameter: `now` in ms for `.caller`, NULL for `.database`.
    func millis(_ now: Date) -> PostgresValue {
        self == .caller ? .integer(now.storeMillis) : .null
    }

    /// The value for a `seconds(_:)` parameter: `now`'s whole seconds for `.caller`, NULL for `.database`.
    func seconds(_ now: Date) -> PostgresValue {
        self == .caller ? .integer(Int64(now.timeIntervalSince1970.rounded(.down))) : .null
    }
}
