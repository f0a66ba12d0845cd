import Foundation
public import PushIO
import PushStoreSQL

/// Everything `push-server` needs to start: from a JSON file, then `PUSH_*` environment variables,
/// then command-line flags (later sources win). See `Resources/push-server.example.json`.
public struct PushServiceConfiguration: Sendable, Equatable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// Port to listen on (0 picks a free one).
    public var port = 8080
    /// Directory for the database, credentials and the generated API key.
    public var dataDirectory = "./var"
    /// The store: a SQLite file path, or a `postgres://user:password@host:port/database` URL for a
    /// PostgreSQL database shared by several instances; nil means `<dataDirectory>/push.sqlite`.
    public var databasePath: String?
    /// PostgreSQL only: this instance's connections (requests, the outbox worker and retention share them).
    public var databasePoolSize = 8
    /// PostgreSQL only: how long one database call may go unanswered before its connection is cut and the
    /// call fails as unavailable (a primary that stopped without a reset); `database_call_timeout_s`.
    public var databaseCallTimeout: Duration = PostgresDatabase.defaultCallTimeout
    /// PostgreSQL only: this instance's name in outbox claims; nil picks host name, process id and a random part.
    public var instanceID: String?
    /// PostgreSQL only: how long an outbox claim is leased; rows of an instance that died are sent by another
    /// after this long. Live instances renew the leases of rows they still send every third of it.
    public var outboxLease: Duration = .seconds(60)
    /// Accepted API keys (Bearer tokens), kept as SHA-256 digests with names, scopes and rate limits.
    public var apiKeys: [APIKey] = []
    /// Whether `GET /metrics` needs a key with the `read` scope (default: open).
    public var protectMetrics = false
    /// Whether `GET /healthz` needs a key with the `read` scope (default: open).
    public var protectHealthz = false
    /// The secret the web console signs its session cookies with (`console_session_secret`,
    /// `PUSH_CONSOLE_SESSION_SECRET`; at least 32 characters); every instance behind one balancer needs the
    /// same. nil: a random one per start, so sessions hold on one instance only.
    public var consoleSessionSecret: String?
    /// TLS on the REST listener; plain HTTP unless a certificate is set.
    public var tls = TLSListenerSettings()
    /// Run an in-process mock APNs with fresh credentials instead of talking to Apple.
    public var embedded = false
    /// The default `apns-topic` (the app's bundle id) for devices and pushes that name none.
    public var topic: String?
    /// Lowest log level written.
    public var logLevel: LogLevel = .info
    /// APNs connection settings (shared by every app; the single app's credentials when `apps` is empty).
    public var apns = APNSSettings()
    /// The apps this server pushes for, each with its topic and credentials (`apps` in the file); empty:
    /// one app from `apns` and `topic`, as before several apps were possible (see `resolvedApps`).
    public var apps: [AppSettings] = []
    /// Most notifications claimed and not yet settled at once: handed to APNs, or answered with the outcome
    /// not yet committed. It bounds what a killed instance leaves sent but unrecorded, hence the duplicates
    /// per kill (each resent after the lease), and with APNs' round trip it bounds one instance's rate
    /// (about `maxInFlight` / round trip): 100 keeps a kill to at most 100 duplicates, at far less rate
    /// when APNs answers slowly.
    public var maxInFlight = 1_000
    /// The bound on what the outbox holds: `POST /v1/pushes` past it is refused (`outbox.max_pending` …).
    public var outboxBound = OutboxBound()
    /// Rows claimed from the outbox per transaction.
    public var claimBatch = 500
    /// Send a device notification without a collapse id of its own with one derived from its id, the same
    /// on every attempt, so a resend after an unknown outcome replaces the first copy on the device
    /// (`outbox.derive_collapse_id`, `--no-derived-collapse-id`).
    public var derivesCollapseID = true
    /// Time between looks for due retries when nothing else wakes the worker.
    public var retryTick: Duration = .seconds(1)
    /// Delay after the first failed attempt; doubles per attempt.
    public var retryBaseDelay: Duration = .seconds(1)
    /// Longest retry delay.
    public var retryMaxDelay: Duration = .seconds(300)
    /// Send attempts before a row is `failed`.
    public var retryMaxAttempts = 8
    /// How long `?wait=true` waits for outcomes.
    public var waitTimeout: Duration = .seconds(10)
    /// How long shutdown lets in-flight sends finish.
    public var shutdownDeadline: Duration = .seconds(10)
    /// Largest request body in bytes.
    public var maxBodyBytes = 4 << 20
    /// Idle/read/write timeout of HTTP connections (whole seconds count).
    public var httpTimeout: Duration = .seconds(30)
    /// Profile drop: largest distance in meters.
    public var dropMaxDistanceMeters = 0.3
    /// Profile drop: largest angle off the forward axis in degrees.
    public var dropMaxAngleDegrees = 30.0
    /// Profile drop: how long a one-sided drop waits for the peer.
    public var dropWindow: Duration = .seconds(10)
    /// Walks: an accepted mate request starts a Live Activity on both users' phones (their push-to-start
    /// tokens of `walkAttributesType`), ended when either user ends the walk (`walks.live_activity`).
    public var walkLiveActivities = false
    /// Walks: the `ActivityAttributes` type of the walk's Live Activity (`walks.attributes_type`).
    public var walkAttributesType = "WalkAttributes"
    /// Live Activities: the per-activity budget of priority-10 updates (`live_activities`).
    public var liveActivities = LiveActivitySettings()
    /// How long finished rows stay before the retention job deletes them.
    public var retention = RetentionPolicy()
    /// Webhook endpoints from the file and delivery settings.
    public var webhooks = WebhookSettings()

    /// How to reach APNs.
    public struct APNSSettings: Sendable, Equatable {
        /// The provider certificate and key (.p12).
        public var p12Path: String?
        /// The .p12 password. Never logged.
        public var password: String?
        /// Token authentication instead of a certificate: the `.p8` signing key (PKCS#8, EC P-256).
        public var p8Path: String?
        /// The 10-character key id of the `.p8` key.
        public var keyID: String?
        /// The 10-character team id the key belongs to.
        public var teamID: String?
        /// Overrides the APNs host for both environments (e.g. a mock server).
        public var host: String?
        /// Overrides the APNs port.
        public var port: Int?
        /// The channel management port on the override `host` (a mock's management listener); with Apple's
        /// hosts the management endpoints are Apple's own (2195 development, 2196 production).
        public var channelPort: Int?
        /// A CA certificate (PEM file) to trust instead of the system store (for a mock server).
        public var caPath: String?
        /// HTTP/2 connections per environment.
        public var connections = 1
        /// The egress proxy set explicitly (`apns.proxy`, `PUSH_APNS_PROXY`, `--apns-proxy`); nil: none set.
        /// Its credentials are never logged.
        public var proxy: APNSProxySetting?
        /// The proxy `HTTPS_PROXY` / `https_proxy` names, used when `proxy` is nil (see `proxy(for:)`).
        public var environmentProxy: IOProxy?
        /// `NO_PROXY` / `no_proxy` entries: hosts `environmentProxy` does not apply to.
        public var noProxy: [String] = []

        /// Defaults: Apple's hosts, one connection.
        public init() {}
    }

    /// TLS for the REST listener: certificate and key (PEM), optionally a CA that client certificates must chain to.
    public struct TLSListenerSettings: Sendable, Equatable {
        /// The server certificate chain (PEM); TLS is on when set.
        public var certificatePath: String?
        /// The server's private key (PEM); required with a certificate.
        public var keyPath: String?
        /// When set, clients must present a certificate issued by this CA (PEM).
        public var clientCAPath: String?

        /// TLS with this certificate and key (all nil: plain HTTP).
        public init(certificatePath: String? = nil, keyPath: String? = nil, clientCAPath: String? = nil) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
            self.clientCAPath = clientCAPath
        }

        /// True when the listener speaks TLS.
        public var isEnabled: Bool { certificatePath != nil || keyPath != nil }
    }

    /// The defaults.
    public init() {}

    /// The database path in effect.
    public var resolvedDatabasePath: String {
        databasePath ?? URL(fileURLWithPath: dataDirectory).appendingPathComponent("push.sqlite").path
    }
}
