import APNSCore
import ArgumentParsing
import Foundation
import JSON

extension PushServiceConfiguration {
    /// Builds the configuration from `arguments` (without the program name) and `environment`.
    public static func load(arguments: [String], environment: [String: String]) throws(ConfigurationError)
        -> PushServiceConfiguration
    {
        var configuration = PushServiceConfiguration()
        let parsed = try parse(arguments: arguments)
        if let file = parsed.value("config") ?? environment["PUSH_CONFIG"] {
            try configuration.apply(file: file)
        }
        try configuration.apply(environment: environment)
        try configuration.apply(arguments: parsed)
        try checkUnique(configuration.apiKeys)
        try configuration.checkApps()
        return configuration
    }

    private mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        if let value = environment["PUSH_HOST"] { host = value }
        if let value = environment["PUSH_PORT"] { port = try Self.port(value, "PUSH_PORT") }
        if let value = environment["PUSH_DATA_DIR"] { dataDirectory = value }
        if let value = environment["PUSH_DATABASE"] { databasePath = value }
        if let value = environment["PUSH_INSTANCE_ID"] { instanceID = value }
        if let value = environment["PUSH_OUTBOX_MAX_PENDING"] { outboxBound.maxPending = try Self.count(value, "PUSH_OUTBOX_MAX_PENDING") }
        if let value = environment["PUSH_OUTBOX_MAX_PENDING_BYTES"] {
            outboxBound.maxPendingBytes = try Self.count(value, "PUSH_OUTBOX_MAX_PENDING_BYTES")
        }
        if let value = environment["PUSH_API_KEY"] {
            let secrets = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            apiKeys = []
            for secret in secrets { apiKeys.append(try APIKey(name: "key-\(apiKeys.count + 1)", secret: secret)) }
        }
        if let value = environment["PUSH_TLS_CERT"] { tls.certificatePath = value }
        if let value = environment["PUSH_TLS_KEY"] { tls.keyPath = value }
        if let value = environment["PUSH_TLS_CLIENT_CA"] { tls.clientCAPath = value }
        if let value = environment["PUSH_PROTECT_METRICS"] { protectMetrics = try Self.bool(value, "PUSH_PROTECT_METRICS") }
        if let value = environment["PUSH_CONSOLE_SESSION_SECRET"] {
            consoleSessionSecret = try Self.consoleSecret(value, "PUSH_CONSOLE_SESSION_SECRET")
        }
        if let value = environment["PUSH_PROTECT_HEALTHZ"] { protectHealthz = try Self.bool(value, "PUSH_PROTECT_HEALTHZ") }
        if let value = environment["PUSH_TOPIC"] { topic = value }
        if let value = environment["PUSH_EMBEDDED"] { embedded = try Self.bool(value, "PUSH_EMBEDDED") }
        if let value = environment["PUSH_APNS_P12"] { apns.p12Path = value }
        if let value = environment["PUSH_APNS_PASSWORD"] { apns.password = value }
        if let value = environment["PUSH_APNS_P8"] { apns.p8Path = value }
        if let value = environment["PUSH_APNS_KEY_ID"] { apns.keyID = value }
        if let value = environment["PUSH_APNS_TEAM_ID"] { apns.teamID = value }
        if let value = environment["PUSH_APNS_HOST"] { apns.host = value }
        if let value = environment["PUSH_APNS_PORT"] { apns.port = try Self.port(value, "PUSH_APNS_PORT") }
        if let value = environment["PUSH_APNS_CA"] { apns.caPath = value }
        if let value = environment["PUSH_APNS_PROXY"] { apns.proxy = try APNSSettings.proxySetting(value, "PUSH_APNS_PROXY") }
        try apns.applyProxyEnvironment(environment)
        if let value = environment["PUSH_LOG_LEVEL"] { logLevel = try Self.level(value) }
    }

    /// A console session secret: at least 32 characters (a shorter one is refused rather than weakened).
    static func consoleSecret(_ value: String, _ name: String) throws(ConfigurationError) -> String {
        guard value.utf8.count >= 32 else { throw ConfigurationError("\(name) must be at least 32 characters") }
        return value
    }

    private mutating func apply(file: String) throws(ConfigurationError) {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError("configuration file \(file) cannot be read")
        }
        let root: JSONFields
        do {
            root = try JSONFields(try JSONValue.parse(Array(data)))
        } catch {
            throw ConfigurationError("configuration file \(file) is not a JSON object: \(error)")
        }
        do {
            try apply(json: root)
        } catch {
            throw ConfigurationError("configuration file \(file): \(error.message)")
        }
    }

    private mutating func apply(json root: JSONFields) throws(APIError) {
        try root.checkKnown([
            "host", "port", "data_dir", "database", "database_pool_size", "database_call_timeout_s", "instance_id", "api_keys", "embedded", "topic",
            "log_level",
            "apns", "outbox", "drops", "walks", "wait_timeout_s", "shutdown_deadline_s", "max_body_bytes",
            "http_timeout_s", "protect_metrics", "protect_healthz", "tls", "retention", "apps", "$comment",
            "webhooks", "webhook_delivery", "live_activities", "console_session_secret",
        ])
        if let section = try root.object("retention") { try retention.apply(json: section) }
        if let section = try root.object("live_activities") { try liveActivities.apply(json: section) }
        if let list = try root.array("apps") { apps = try Self.apps(json: list) }
        if let list = try root.array("webhooks") { try webhooks.apply(endpoints: list) }
        if let section = try root.object("webhook_delivery") { try webhooks.apply(delivery: section) }
        if let value = try root.string("host") { host = value }
        if let value = try root.int("port") { port = value }
        if let value = try root.string("data_dir") { dataDirectory = value }
        if let value = try root.string("database") { databasePath = value }
        if let value = try root.int("database_pool_size", in: 1...256) { databasePoolSize = value }
        if let value = try root.double("database_call_timeout_s") {
            guard value >= 1, value <= 3_600 else { throw .invalidField("database_call_timeout_s", "must be 1 to 3600 seconds") }
            databaseCallTimeout = .milliseconds(Int64(value * 1_000))
        }
        if let value = try root.string("instance_id") { instanceID = value }
        if let keys = try root.array("api_keys") { apiKeys = try Self.apiKeys(json: keys) }
        if let value = try root.bool("protect_metrics") { protectMetrics = value }
        if let value = try root.bool("protect_healthz") { protectHealthz = value }
        if let value = try root.string("console_session_secret") {
            do {
                consoleSessionSecret = try Self.consoleSecret(value, "console_session_secret")
            } catch {
                throw .invalidField("console_session_secret", "must be at least 32 characters")
            }
        }
        if let section = try root.object("tls") {
            try section.checkKnown(["cert", "key", "client_ca"])
            if let value = try section.string("cert") { tls.certificatePath = value }
            if let value = try section.string("key") { tls.keyPath = value }
            if let value = try section.string("client_ca") { tls.clientCAPath = value }
        }
        if let value = try root.bool("embedded") { embedded = value }
        if let value = try root.string("topic") { topic = value }
        if let value = try root.string("log_level") {
            guard let level = LogLevel(rawValue: value) else { throw .invalidField("log_level", "unknown level") }
            logLevel = level
        }
        if let value = try root.double("wait_timeout_s") { waitTimeout = .seconds(value) }
        if let value = try root.double("shutdown_deadline_s") { shutdownDeadline = .seconds(value) }
        if let value = try root.int("max_body_bytes") { maxBodyBytes = value }
        if let value = try root.int("http_timeout_s") { httpTimeout = .seconds(value) }
        if let section = try root.object("apns") {
            try section.checkKnown(["p12", "password", "p8", "key_id", "team_id", "host", "port", "channel_port", "ca", "connections", "proxy"])
            if let value = try section.string("p8") { apns.p8Path = value }
            if let value = try section.string("key_id") { apns.keyID = value }
            if let value = try section.string("team_id") { apns.teamID = value }
            if let value = try section.string("p12") { apns.p12Path = value }
            if let value = try section.string("password") { apns.password = value }
            if let value = try section.string("host") { apns.host = value }
            if let value = try section.int("port") { apns.port = value }
            if let value = try section.int("channel_port") { apns.channelPort = value }
            if let value = try section.string("ca") { apns.caPath = value }
            if let value = try section.int("connections") { apns.connections = max(1, value) }
            if let value = try section.string("proxy") {
                do {
                    apns.proxy = try APNSSettings.proxySetting(value, "apns.proxy")
                } catch {
                    throw .invalidField("apns.proxy", error.message)
                }
            }
        }
        if let section = try root.object("outbox") {
            try section.checkKnown([
                "max_in_flight", "claim_batch", "retry_base_delay_s", "retry_max_delay_s",
                "retry_max_attempts", "retry_tick_s", "lease_s", "derive_collapse_id", "max_pending", "max_pending_per_app", "max_pending_bytes",
                "max_pending_bytes_per_app", "admission_refresh_s",
            ])
            if let value = try section.int("max_pending") { outboxBound.maxPending = max(0, value) }
            if let value = try section.int("max_pending_per_app") { outboxBound.maxPendingPerApp = max(0, value) }
            if let value = try section.int("max_pending_bytes") { outboxBound.maxPendingBytes = max(0, value) }
            if let value = try section.int("max_pending_bytes_per_app") { outboxBound.maxPendingBytesPerApp = max(0, value) }
            if let value = try section.double("admission_refresh_s") {
                guard value >= 0, value.isFinite else { throw .invalidField("outbox.admission_refresh_s", "must be 0 or more seconds") }
                outboxBound.refresh = .milliseconds(Int64(value * 1000))
            }
            if let value = try section.double("lease_s") {
                guard value >= 10, value.isFinite else { throw .invalidField("outbox.lease_s", "must be at least 10 seconds") }
                outboxLease = .seconds(value)
            }
            if let value = try section.int("max_in_flight") { maxInFlight = max(1, value) }
            if let value = try section.int("claim_batch") { claimBatch = max(1, value) }
            if let value = try section.bool("derive_collapse_id") { derivesCollapseID = value }
            if let value = try section.double("retry_base_delay_s") { retryBaseDelay = .seconds(value) }
            if let value = try section.double("retry_max_delay_s") { retryMaxDelay = .seconds(value) }
            if let value = try section.int("retry_max_attempts") { retryMaxAttempts = max(1, value) }
            if let value = try section.double("retry_tick_s") { retryTick = .seconds(max(0.01, value)) }
        }
        if let section = try root.object("drops") {
            try section.checkKnown(["max_distance_m", "max_angle_deg", "window_s"])
            if let value = try section.double("max_distance_m") { dropMaxDistanceMeters = value }
            if let value = try section.double("max_angle_deg") { dropMaxAngleDegrees = value }
            if let value = try section.double("window_s") { dropWindow = .seconds(value) }
        }
        if let section = try root.object("walks") {
            try section.checkKnown(["live_activity", "attributes_type"])
            if let value = try section.bool("live_activity") { walkLiveActivities = value }
            if let value = try section.string("attributes_type", maxBytes: 128), !value.isEmpty { walkAttributesType = value }
        }
    }

    /// A count of 0 or more (0: no bound).
    static func count(_ text: String, _ name: String) throws(ConfigurationError) -> Int {
        guard let value = Int(text), value >= 0 else { throw .usage("\(name) must be a whole number, 0 or more") }
        return value
    }

    static func port(_ text: String, _ name: String) throws(ConfigurationError) -> Int {
        guard let port = Int(text), (0...65535).contains(port) else { throw .usage("\(name) must be a port number 0-65535") }
        return port
    }

    static func bool(_ text: String, _ name: String) throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no", "": return false
        default: throw .usage("\(name) must be true or false")
        }
    }

    static func level(_ text: String) throws(ConfigurationError) -> LogLevel {
        guard let level = LogLevel(rawValue: text.lowercased()) else {
            throw .usage("log level must be one of debug, info, warning, error")
        }
        return level
    }
}
