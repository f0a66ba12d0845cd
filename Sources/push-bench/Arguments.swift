import ArgumentParsing

/// A bad or missing command-line argument.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// One command's options, read with the package's shared parser (`--name value`, `--name=value`,
/// `--switch`, `-n`/`-m` for the counts), with the defaults the commands give.
struct Arguments {
    private let parsed: ParsedArguments

    /// Parses `tokens` (after the command) against `options`.
    init(_ tokens: [String], options: [OptionSpec]) throws(UsageError) {
        do {
            parsed = try ParsedArguments(tokens, options: options)
            _ = try parsed.positionals([])
        } catch {
            throw UsageError(description: error.description)
        }
    }

    /// `-h` or `--help` was given.
    var wantsHelp: Bool { parsed.wantsHelp }

    /// Whether switch `--name` was given.
    func flag(_ name: String) -> Bool { parsed.has(name) }

    /// The text of `--name`, or nil.
    func string(_ name: String) -> String? { parsed.value(name) }

    /// The text of `--name`, which must be present.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = parsed.value(name) else { throw UsageError(description: "missing --\(name)") }
        return value
    }

    /// `--name` as an integer, or `fallback`.
    func int(_ name: String, _ fallback: Int) throws(UsageError) -> Int {
        do { return try parsed.int(name) ?? fallback } catch { throw UsageError(description: error.description) }
    }

    /// `--name` as a number, or `fallback`.
    func double(_ name: String, _ fallback: Double) throws(UsageError) -> Double {
        do { return try parsed.double(name) ?? fallback } catch { throw UsageError(description: error.description) }
    }
}

/// The options of each command.
enum BenchOptions {
    static let count = OptionSpec.value("count", "n", "notifications (or cycles) to run", short: "n")
    static let payloadBytes = OptionSpec.value("payload-bytes", "b", "request body size (default 256)")

    static let mock: [OptionSpec] = [
        .value("write-credentials", "dir", "write the CA, server and client credentials here (required)"),
        .value("host", "addr", "listen address (default 127.0.0.1)"),
        .value("port", "n", "listen port (default 0: pick one)"),
        .flag("accept-all", "answer 200 without checking anything"),
        .flag("no-client-auth", "ask no client certificate (needs --accept-all)"),
        .value("latency-ms", "ms", "answer after this long (either path)"),
        .flag("no-unique-ids", "answer as production APNs does: no apns-unique-id (the sandbox sends one)"),
        .value("max-streams", "n", "MAX_CONCURRENT_STREAMS (default 1000)"),
        .value("reject-percent", "p", "reject this share of notifications (rule path)"),
        .flag("drop-limit-after-rejection", "lower the stream limit to 1 after a rejection"),
        .flag("ignore-stdin", "run until SIGTERM/SIGINT, not until stdin closes"),
    ]

    static let client: [OptionSpec] = [
        .value("host", "addr", "the server (default 127.0.0.1)"),
        .value("port", "n", "its port (required)"),
        .value("ca", "file", "CA to trust (required)"),
        .value("cert", "file", "client certificate (required)"),
        .value("key", "file", "its key (required)"),
        count,
        .value("in-flight", "m", "pending notifications (default 1000)", short: "m"),
        .value("connections", "n", "HTTP/2 connections (default 1)"),
        payloadBytes,
        .value("max-streams", "n", "our stream ceiling (default 1000)"),
        .flag("latencies", "report latency percentiles"),
        .value("token", "hex", "device token"),
        .value("topic", "topic", "apns-topic"),
        .value("batch", "k", "send(batch:) in chunks of K, at most -m pending (default: -m callers of send)"),
        .flag("global-executor", "callers run on the global executor (default: on the client's loop thread)"),
        .value("timeout", "s", "request timeout (default 60)"),
        .url(
            "proxy", "url", "reach the server through this proxy (with a password: PUSH_APNS_PROXY)",
            passwordFrom: "the PUSH_APNS_PROXY environment variable"),
    ]

    static let payload: [OptionSpec] = [payloadBytes, .value("out", "file", "where to write the body (required)")]

    static let store: [OptionSpec] = [
        count,
        .value("batch", "n", "rows per enqueue (default 1000)"),
        .value("path", "file", "SQLite file (default a fresh temporary one)"),
        .choice("shape", ["rows", "push"], "a row per notification (default), or each batch one push stored once"),
        .url(
            "database", "url", "postgres:// URL instead of SQLite (with a password: PUSH_DATABASE)",
            passwordFrom: "the PUSH_DATABASE environment variable"),
        .value("workers", "w", "PostgreSQL workers, each an instance of its own (default 1)"),
    ]

    static let drops: [OptionSpec] = [
        .value("reporters", "n", "concurrent reporters (default 1000)"),
        .value("rounds", "n", "rounds (default 5)"),
        .choice("store", ["memory", "sqlite", "postgres"], "the store (default memory)"),
        .url(
            "database", "url", "the postgres:// URL for --store postgres (with a password: PUSH_DATABASE)",
            passwordFrom: "the PUSH_DATABASE environment variable"),
        .value("instances", "n", "match services sharing the database (default 1)"),
        .value("pool", "n", "connections per instance (default 8)"),
        .value(
            "perf-control", "fifo",
            "perf record's --control fifo: `enable` is written to it after the setup, `disable` after the rounds"),
        .value("perf-ack", "fifo", "perf record's ack fifo, read after each command (with --perf-control)"),
    ]
}
