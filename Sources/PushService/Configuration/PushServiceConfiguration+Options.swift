public import ArgumentParsing
import Foundation

extension PushServiceConfiguration {
    /// The options of `push-server`, in the package's one grammar (`--name value`, `--name=value`,
    /// `--switch`): what the parser takes and `--help` lists. Secrets are never option values: API keys come
    /// from `--api-key-file` or `PUSH_API_KEY`, the .p12 password from `--apns-password-file` or
    /// `PUSH_APNS_PASSWORD`, and URLs with a password from the environment or the configuration file.
    public static let options: [OptionSpec] =
        [
            .value(
                "config", "file",
                "JSON configuration file (see Resources/push-server.example.json; several apps, each with its own .p12 or .p8: \"apps\", see Resources/push-server.apps.example.json)"
            ),
            .flag("embedded", "run two apps (.p12 and .p8) against in-process mock APNs servers (no Apple account)"),
            .value("data-dir", "dir", "database, credentials and api-key live here (default ./var)"),
            .value("host", "addr", "listen address (default 127.0.0.1)"),
            .value("port", "n", "listen port (default 8080; 0 picks one and prints it)"),
            .url(
                "database", "path|url",
                "SQLite file (default DATA_DIR/push.sqlite), or postgres://user@host:port/db for a PostgreSQL database several instances share (a primary and its standby: postgresql://user@a:5432,b:5432/db?target_session_attrs=read-write; a URL with a password: PUSH_DATABASE or the configuration file)",
                passwordFrom: "PUSH_DATABASE or \"database\" in the --config file"),
            .value("instance-id", "name", "this instance's name in outbox claims (PostgreSQL; default host-pid-random)"),
            .value(
                "outbox-max-pending", "n",
                "refuse pushes (503 outbox_full) past this many notifications pending in the outbox (default 1000000; 0: no bound)"),
            .value("outbox-max-pending-bytes", "n", "the same for their payload bytes (default 1073741824; 0: no bound)"),
            .value(
                "api-key-file", "file",
                "file of accepted Bearer keys, or sha256:<hex> of them, one per line (or PUSH_API_KEY, comma-separated)", repeatable: true),
            .value("tls-cert", "path", "serve HTTPS with this certificate chain (PEM); reloaded on SIGHUP"),
            .value("tls-key", "path", "its private key (PEM)"),
            .value("tls-client-ca", "path", "require client certificates issued by this CA (PEM)"),
            .flag("protect-metrics", "GET /metrics needs a key with the read scope"),
            .flag("protect-healthz", "GET /healthz needs a key with the read scope"),
            .value("topic", "bundle-id", "default apns-topic"),
            .value("apns-p12", "path", "APNs provider certificate (.p12) of the single app (without \"apps\")"),
            .value("apns-password-file", "file", "file holding its password (or PUSH_APNS_PASSWORD)"),
        ] + OptionSpec.apnsTokenKey(prefix: "apns-") + OptionSpec.apnsEndpoint(prefix: "apns-") + [
            .url(
                "apns-proxy", "url",
                "reach APNs through http://host:port (CONNECT) or socks5://host:port (?nodelay=1 for a proxy that relays at once, see docs/OPERATING.md); 'none' ignores HTTPS_PROXY (a proxy URL with a password: PUSH_APNS_PROXY)",
                passwordFrom: "PUSH_APNS_PROXY"),
            .flag(
                "no-derived-collapse-id",
                "send notifications without a collapse id of their own without one (default: one derived from the notification's id, so a resend replaces the first copy on the device)"
            ),
            .value("log-level", "debug|info|warning|error", "how much to log (default info)"),
            .refused("api-key", instead: "--api-key-file FILE or PUSH_API_KEY"),
            .refused("apns-password", instead: "--apns-password-file FILE or PUSH_APNS_PASSWORD"),
        ]

    /// The `--help` text of `push-server`.
    public static let usage =
        ([
            "OVERVIEW: The SniffMeet push service: REST API, durable outbox, APNs delivery, profile drops.",
            "",
            "USAGE: push-server [--embedded] [--data-dir <dir>] [--port <n>] [options]",
            "",
            "OPTIONS:",
        ] + OptionHelp.lines(options, extra: [("--version", "Print the version and exit.")]) + [
            "",
            """
            ENVIRONMENT: PUSH_CONFIG, PUSH_HOST, PUSH_PORT, PUSH_DATA_DIR, PUSH_DATABASE, PUSH_INSTANCE_ID, PUSH_API_KEY (comma-separated),
              PUSH_OUTBOX_MAX_PENDING, PUSH_OUTBOX_MAX_PENDING_BYTES, PUSH_TLS_CERT, PUSH_TLS_KEY, PUSH_TLS_CLIENT_CA, PUSH_PROTECT_METRICS, PUSH_PROTECT_HEALTHZ, PUSH_TOPIC, PUSH_EMBEDDED, PUSH_APNS_P12, PUSH_APNS_PASSWORD, PUSH_APNS_P8, PUSH_APNS_KEY_ID,
              PUSH_APNS_TEAM_ID, PUSH_APNS_HOST, PUSH_APNS_PORT, PUSH_APNS_CA, PUSH_APNS_PROXY, PUSH_CONSOLE_SESSION_SECRET,
              PUSH_LOG_LEVEL; HTTPS_PROXY and NO_PROXY when no APNs proxy is set.
            SECRETS: never option values. --api-key and --apns-password are refused; use the files or variables above.
            SIGNALS: SIGTERM/SIGINT drain and stop; SIGHUP reloads TLS files, API keys and APNs credentials.
            EXIT CODES: 0 ok, 1 failure, 64 usage error, 78 configuration error.
            """,
        ]).joined(separator: "\n")

    /// Reads `arguments` (without the program name): the options above and no positionals.
    static func parse(arguments: [String]) throws(ConfigurationError) -> ParsedArguments {
        do {
            let parsed = try ParsedArguments(arguments, options: options)
            _ = try parsed.positionals([])
            return parsed
        } catch {
            throw .usage("\(error) (see --help)")
        }
    }

    /// Applies the options other than `--config` over what the file and the environment set.
    mutating func apply(arguments parsed: ParsedArguments) throws(ConfigurationError) {
        if parsed.has("embedded") { embedded = true }
        if let value = parsed.value("data-dir") { dataDirectory = value }
        if let value = parsed.value("host") { host = value }
        if let value = parsed.value("port") { port = try Self.port(value, "--port") }
        if let value = parsed.value("database") { databasePath = value }
        if let value = parsed.value("instance-id") { instanceID = value }
        if let value = parsed.value("outbox-max-pending") { outboxBound.maxPending = try Self.count(value, "--outbox-max-pending") }
        if let value = parsed.value("outbox-max-pending-bytes") {
            outboxBound.maxPendingBytes = try Self.count(value, "--outbox-max-pending-bytes")
        }
        for path in parsed.all("api-key-file") {
            for secret in try Self.keys(inFile: path) { apiKeys.append(try APIKey(name: "key-\(apiKeys.count + 1)", secret: secret)) }
        }
        if let value = parsed.value("tls-cert") { tls.certificatePath = value }
        if let value = parsed.value("tls-key") { tls.keyPath = value }
        if let value = parsed.value("tls-client-ca") { tls.clientCAPath = value }
        if parsed.has("protect-metrics") { protectMetrics = true }
        if parsed.has("protect-healthz") { protectHealthz = true }
        if let value = parsed.value("topic") { topic = value }
        if let value = parsed.value("apns-p12") { apns.p12Path = value }
        if let path = parsed.value("apns-password-file") { apns.password = try Self.secret(inFile: path, "--apns-password-file") }
        if let value = parsed.value("apns-p8") { apns.p8Path = value }
        if let value = parsed.value("apns-key-id") { apns.keyID = value }
        if let value = parsed.value("apns-team-id") { apns.teamID = value }
        if let value = parsed.value("apns-host") { apns.host = value }
        if let value = parsed.value("apns-port") { apns.port = try Self.port(value, "--apns-port") }
        if let value = parsed.value("apns-ca") { apns.caPath = value }
        if let value = parsed.value("apns-proxy") { apns.proxy = try APNSSettings.proxySetting(value, "--apns-proxy") }
        if let value = parsed.value("log-level") { logLevel = try Self.level(value) }
        if parsed.has("no-derived-collapse-id") { derivesCollapseID = false }
    }

    /// The keys in an `--api-key-file`: one per line, blank lines and `#` comments skipped.
    private static func keys(inFile path: String) throws(ConfigurationError) -> [String] {
        let keys = try secret(inFile: path, "--api-key-file").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !keys.isEmpty else { throw ConfigurationError("the --api-key-file \(path) holds no key") }
        return keys
    }

    private static func secret(inFile path: String, _ option: String) throws(ConfigurationError) -> String {
        do {
            return try SecretInput.text(ofFile: path, option: option)
        } catch {
            throw ConfigurationError(error.description)
        }
    }
}
