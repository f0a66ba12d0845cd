import JSON
import PushHTTP1
import PushStore
import PushSync

/// What SIGHUP and `POST /v1/admin/reload` reload without a restart: the REST listener's TLS files, the
/// apps' APNs credentials, the API keys and the webhook endpoints of the configuration file. Each part that
/// cannot be reloaded keeps what it had and says why.
final class ServiceReloader: Sendable {
    private let apps: PushAppSet?
    private let keys: ReloadableAuthenticator
    private let listenerTLS: HTTPServerTLS?
    private let logger: ServiceLogger
    private let metrics: ServiceMetrics
    /// Where the configuration file's webhook endpoints live (replaced on reload; API-made ones stay).
    private let webhooks: (any WebhookRepository)?
    /// Reads the configuration again (the launcher's loads the file, environment and flags anew); the
    /// default returns the configuration the server started with, so credential files are read again.
    private let source: PThreadLock<Source>

    /// The loader, in a struct: a closure stored straight in the generic lock is wrapped in two more thunks
    /// by every `withLock` (see `PThreadLock`).
    private struct Source: Sendable {
        let load: @Sendable () throws -> PushServiceConfiguration
    }

    init(
        configuration: PushServiceConfiguration, apps: PushAppSet?, keys: ReloadableAuthenticator,
        listenerTLS: HTTPServerTLS?, logger: ServiceLogger, metrics: ServiceMetrics,
        webhooks: (any WebhookRepository)? = nil
    ) {
        self.webhooks = webhooks
        self.apps = apps
        self.keys = keys
        self.listenerTLS = listenerTLS
        self.logger = logger
        self.metrics = metrics
        source = PThreadLock(Source(load: { configuration }))
    }

    /// Where reloads read the configuration from.
    func setSource(_ load: @escaping @Sendable () throws -> PushServiceConfiguration) {
        source.withLock { $0 = Source(load: load) }
    }

    /// One reload's outcome.
    struct Result: Sendable {
        /// Parts reloaded (`tls`, `api_keys`, `apps`, `webhooks`).
        var reloaded: [String] = []
        /// Each app's outcome.
        var apps: [PushAppReload] = []
        /// Why parts were kept, one line each.
        var errors: [String] = []

        /// The JSON answer of `POST /v1/admin/reload`.
        var json: JSONValue {
            [
                "reloaded": .array(reloaded.map { .string($0) }),
                "apps": .array(
                    apps.map { result in
                        var fields: [String: JSONValue] = ["name": .string(result.app), "outcome": .string(result.outcome.rawValue)]
                        if let error = result.error { fields["error"] = .string(error) }
                        return .object(fields)
                    }),
                "errors": .array(errors.map { .string($0) }),
            ]
        }
    }

    /// Reloads everything it can; never stops serving.
    func reload() async -> Result {
        var result = Result()
        let configuration: PushServiceConfiguration
        do {
            let load = source.withLock { $0.load }
            configuration = try load()
        } catch {
            let message = (error as? ConfigurationError)?.message ?? "\(error)"
            logger.error("config.reload_failed", [("error", message)])
            result.errors.append(message)
            return result
        }
        if let listenerTLS {
            do {
                try ListenerTLS.reload(listenerTLS, configuration.tls, logger: logger)
                result.reloaded.append("tls")
            } catch {
                result.errors.append(error.message)
            }
        }
        if !configuration.apiKeys.isEmpty {
            keys.replace(with: configuration.apiKeys)
            logger.info("api_keys.reloaded", [("keys", "\(configuration.apiKeys.count)")])
            result.reloaded.append("api_keys")
        }
        if let apps {
            result.apps = apps.reload(configuration, metrics: metrics)
            logger.info("credentials.reloaded", [("apps", result.apps.map { "\($0.app):\($0.outcome.rawValue)" }.joined(separator: ","))])
            result.errors += result.apps.compactMap { app in app.error.map { "app \(app.app): \($0)" } }
            result.reloaded.append("apps")
        }
        if let webhooks {
            do {
                try await webhooks.replaceConfigured(configuration.webhooks.endpoints)
                logger.info("webhooks.reloaded", [("endpoints", "\(configuration.webhooks.endpoints.count)")])
                result.reloaded.append("webhooks")
            } catch {
                logger.error("webhooks.reload_failed", [("error", "\(error)")])
                result.errors.append("webhook endpoints: \(error)")
            }
        }
        return result
    }
}

/// The API keys in use, replaceable while requests are served.
final class ReloadableAuthenticator: Sendable {
    private let current: PThreadLock<APIKeyAuthenticator>

    init(keys: [APIKey]) {
        current = PThreadLock(APIKeyAuthenticator(keys: keys))
    }

    /// The key `authorization` carries, checked against the keys in use now.
    func authenticate(_ authorization: String?) -> APIKey? {
        current.withLock { $0 }.authenticate(authorization)
    }

    /// The keys in use now.
    var keys: [APIKey] {
        current.withLock { $0 }.keys
    }

    /// Accepts exactly `keys` from now on.
    func replace(with keys: [APIKey]) {
        current.withLock { $0 = APIKeyAuthenticator(keys: keys) }
    }
}
