internal import CLibPQ
import Foundation

/// What a connection is opened and run with: the connection string's defaults and checks, the isolation
/// levels of transactions, and the planner settings of statements that must look rows up by key.
extension PostgresConnection {
    /// Connection settings used unless the URL sets them (see docs/OPERATING.md, "PostgreSQL with a standby"):
    /// - give up on a host that does not answer after 10 s (`connect_timeout`, per host: with several hosts,
    ///   libpq then tries the next);
    /// - notice a peer that vanished: TCP keepalives after 30 s idle, 3 probes 10 s apart (what wakes an idle
    ///   `LISTEN` connection when the server's machine is gone), and data unacknowledged for 30 s
    ///   (`tcp_user_timeout`, a cut network);
    /// - name the program in `pg_stat_activity`.
    ///
    /// A server that stops answering without a reset (SIGSTOP, a frozen machine) answers none of these, and
    /// PostgreSQL's `statement_timeout` never covers a commit's wait for a synchronous standby: the pool's
    /// deadline on each call (`PostgresPool.callTimeout`, `PostgresWatchdog`) covers both.
    package static let defaults: [(key: String, value: String)] = [
        ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "30000"),
        ("application_name", "push-server"),
    ]

    /// Calls `body` with `strings` as a NULL-terminated array of C strings.
    package static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { UnsafePointer($0) } + [nil])
    }

    /// Throws `badURL` unless libpq can parse `conninfo`.
    package static func validate(_ conninfo: String) throws(PostgresError) {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            let message = error.map { String(cString: $0) } ?? "cannot parse the connection string"
            if let error { PQfreemem(error) }
            throw PostgresError(kind: .badURL, function: "PQconninfoParse", message: message)
        }
        PQconninfoFree(options)
    }

    /// The settings `conninfo` names, as libpq reads them (a URL or `key=value` pairs; several hosts stay one
    /// comma-separated value, as libpq takes them): nil unless libpq can parse it.
    package static func settings(_ conninfo: String) -> [String: String]? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var settings: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { settings[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return settings
    }

    /// True when `text` is a PostgreSQL connection string: a `postgres://` or `postgresql://` URL, or libpq
    /// `key=value` pairs starting with `host=`, `hostaddr=`, `dbname=`, `service=` or `user=`.
    package static func isConnectionString(_ text: String) -> Bool {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") { return true }
        let first = value.prefix { $0 != "=" && $0 != " " }
        guard ["host", "hostaddr", "dbname", "service", "user", "port"].contains(String(first)),
            value.dropFirst(first.count).drop(while: { $0 == " " }).hasPrefix("=")
        else { return false }
        return settings(text) != nil
    }

    /// `conninfo` for logs: its password replaced by `***` (in a URL's user part, a `password=` pair or a
    /// URL's `password` parameter).
    package static func redacted(_ conninfo: String) -> String {
        var text = conninfo
        let lower = text.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://"),
            let schemeEnd = text.range(of: "://")
        {
            // The user part ends at the last `@` before the path, query or end.
            let rest = text[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        // `password=…` as a key=value pair or a URL parameter, up to the next space or `&`.
        var result = ""
        var remaining = Substring(text)
        while let range = remaining.range(of: "password=", options: .caseInsensitive) {
            result += remaining[..<range.upperBound] + "***"
            remaining = remaining[range.upperBound...].drop { $0 != " " && $0 != "&" }
        }
        return result + remaining
    }

    /// Makes the statements of the open transaction join by looking rows up one by one (nested loops over
    /// indexes), never by hashing or sorting a whole table. The planner's statistics of a table that grows or
    /// drains by thousands of rows a second lag far behind it, and with a low row count it hashes the whole
    /// table for a join of a few rows:
    /// - an outbox completion of 1,000 rows took 118 ms instead of 40 ms on 50,000 rows;
    /// - a drop report's lookups of its users' drops and of the drop its mate requests belong to read all of
    ///   `drops` under the plan cache's generic plans (6,333 scans of it in a run of 10,000 reports).
    ///
    /// Sent with the transaction's next statement, in the same round trip.
    package func joinByLookup() {
        executeWithNext("SET LOCAL enable_hashjoin = off")
        executeWithNext("SET LOCAL enable_mergejoin = off")
    }

    /// `joinByLookup`, and no table read whole where an index reaches the rows: for the outbox's claims,
    /// completions and renewals, whose statements were planned (and their generic plans cached) while the
    /// state table was nearly empty, and went on scanning it once per row as it grew (a completion of 1,000
    /// rows at 100,000 state rows: a scan of them for every row looked up).
    ///
    /// Sent with the transaction's next statement, in the same round trip.
    package func lookUpByKey() {
        joinByLookup()
        executeWithNext("SET LOCAL enable_seqscan = off")
        withoutJIT()
    }

    /// Lets the open transaction's commit return before its WAL reaches the disk (`synchronous_commit = off`):
    /// for the outbox's claims, completions and renewals, never for an enqueue. A crash of the database server
    /// (not of an instance: a commit is in the server's memory once it returns) can forget the last of them,
    /// up to three WAL writer rounds (0.6 s by default); their rows are then in flight or queued again, as if
    /// those claims or outcomes had not happened, and are sent again: no row is lost, and the database stays
    /// consistent (as after a crash of an instance). Each such commit saves a flush (0.3 ms here, more when the
    /// disk is busy), two per batch of the outbox's cycle: B10 with one worker, side by side in four rounds,
    /// 10% more cycles a second (−3% to +20% by round).
    ///
    /// Sent with the transaction's next statement, in the same round trip.
    package func commitWithoutFlush() {
        executeWithNext("SET LOCAL synchronous_commit = off")
    }

    /// Runs the open transaction's prepared statements on their generic plan (`plan_cache_mode =
    /// force_generic_plan`): planned once per connection, not at every execution as the plan cache's custom
    /// plans are. Only for statements whose generic plan is known to be as good as a custom one for the
    /// parameters at hand (tests read the plans): forced on a statement whose generic plan is worse it costs
    /// far more than the planning it saves.
    ///
    /// Sent with the transaction's next statement, in the same round trip.
    package func planOnce() {
        executeWithNext("SET LOCAL plan_cache_mode = force_generic_plan")
    }

    /// No JIT compilation in the open transaction. A plan method turned off still runs where nothing else can
    /// (a table with no index for the scan, a sort no index gives), at a cost raised by 10^10, which puts the
    /// plan over `jit_above_cost`: a pending-counts read with the live ranges' table read whole spent 326 ms
    /// compiling a statement that runs in 0.1 ms.
    package func withoutJIT() {
        executeWithNext("SET LOCAL jit = off")
    }
}

/// The isolation level of a transaction.
package enum PostgresIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}
