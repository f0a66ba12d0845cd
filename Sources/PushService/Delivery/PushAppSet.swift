import APNS
import APNSCore
import Foundation
import PushSync

/// The configured apps with their APNs clients: built at start (one client per app and environment, so
/// each app has its own connections and limits), and given new credentials by `reload`.
public final class PushAppSet: Sendable {
    struct Member: Sendable {
        let app: PushApp
        let settings: PushServiceConfiguration.AppSettings
        let health: AppConnectionHealth
        let production: SwappableSender
        let development: SwappableSender
        /// The channel managers (nil where the environment has no management endpoint).
        let productionChannels: SwappableChannelManager?
        let developmentChannels: SwappableChannelManager?
    }

    private let members: [Member]
    /// Per app, the fingerprint of the credential in use; reloads run one at a time under this lock.
    private let fingerprints: PThreadLock<[String: [UInt8]]>
    private let logger: ServiceLogger
    /// The routing table over the apps.
    public let senders: PushSenders

    private init(members: [Member], fingerprints: [String: [UInt8]], logger: ServiceLogger) {
        self.members = members
        self.fingerprints = PThreadLock(fingerprints)
        self.logger = logger
        senders = PushSenders(apps: members.map(\.app))
    }

    /// Reads every app's credential and builds its clients; a topic served by two apps (configured or
    /// listed by their certificates) is refused. Each problem is one line (exit 78).
    public static func build(_ configuration: PushServiceConfiguration, logger: ServiceLogger = .silent) throws(ConfigurationError) -> PushAppSet {
        var providers: [String: APNSTokenProvider] = [:]
        var members: [Member] = []
        var fingerprints: [String: [UInt8]] = [:]
        var owners: [String: String] = [:]
        for settings in configuration.resolvedApps {
            let credential: PushAppCredential
            do {
                credential = try PushAppCredential.load(settings, providers: &providers)
                try credential.check(serves: settings)
            } catch {
                throw configuration.apps.isEmpty ? error : ConfigurationError("app \(settings.name): \(error.message)")
            }
            let topics = credential.topics(of: settings)
            for topic in topics {
                if let other = owners[topic], other != settings.name {
                    throw ConfigurationError("topic \(topic) is served by two apps: \(other) and \(settings.name)")
                }
                owners[topic] = settings.name
            }
            let health = AppConnectionHealth()
            let (production, development) = try clients(configuration, settings, credential, logger: logger, health: health)
            let productionSender = SwappableSender(production, drainDeadline: configuration.shutdownDeadline)
            let developmentSender = SwappableSender(development, drainDeadline: configuration.shutdownDeadline)
            let channels = try channelManagers(configuration, settings, credential)
            let productionChannels = channels.production.map { SwappableChannelManager($0) }
            let developmentChannels = channels.development.map { SwappableChannelManager($0) }
            let app = PushApp(
                name: settings.name, topics: topics, servesAnyTopic: settings.servesAnyTopic,
                maxInFlight: settings.maxInFlight, production: productionSender, development: developmentSender,
                credential: credential.status, connections: health, productionChannels: productionChannels,
                developmentChannels: developmentChannels)
            members.append(
                Member(
                    app: app, settings: settings, health: health, production: productionSender, development: developmentSender,
                    productionChannels: productionChannels, developmentChannels: developmentChannels))
            fingerprints[settings.name] = credential.fingerprint
        }
        return PushAppSet(members: members, fingerprints: fingerprints, logger: logger)
    }

    /// The production and development clients of one app.
    static func clients(
        _ configuration: PushServiceConfiguration, _ app: PushServiceConfiguration.AppSettings,
        _ credential: PushAppCredential, logger: ServiceLogger?, health: AppConnectionHealth?
    ) throws(ConfigurationError) -> (APNSClient, APNSClient) {
        let settings = configuration.apnsSettings(for: app)
        let trustedCA = try StartupChecks.trustedCA(settings)
        do {
            let senders = try PushServerLauncher.clients(
                settings, credentials: credential.credentials, trustedCA: trustedCA, logger: logger,
                app: app.name, maxPending: app.maxInFlight, health: health)
            return senders
        } catch {
            throw ConfigurationError("app \(app.name): APNs client cannot be set up: \(error)")
        }
    }

    /// The channel management clients of one app (with the credential it starts with).
    static func channelManagers(
        _ configuration: PushServiceConfiguration, _ app: PushServiceConfiguration.AppSettings, _ credential: PushAppCredential
    ) throws(ConfigurationError) -> (production: (any APNSChannelManaging)?, development: (any APNSChannelManaging)?) {
        let settings = configuration.apnsSettings(for: app)
        let trustedCA = try StartupChecks.trustedCA(settings)
        do {
            return try PushServerLauncher.channelManagers(settings, credentials: credential.credentials, trustedCA: trustedCA)
        } catch {
            throw ConfigurationError("app \(app.name): APNs channel management client cannot be set up: \(error)")
        }
    }

    /// Reads each app's credential files again (paths from `configuration`, which may name new files).
    /// An app whose files changed gets new clients, for pushes and for channel management: new sends and
    /// management requests use them, the old clients finish what they have and close. A file that cannot be used keeps the old credential, logs one line
    /// (`apns.reload_failed`) and shows in `/healthz` until a good reload. Apps added to or removed from
    /// the configuration need a restart.
    public func reload(_ configuration: PushServiceConfiguration, metrics: ServiceMetrics?) -> [PushAppReload] {
        let configured = Dictionary(configuration.resolvedApps.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return fingerprints.withLock { fingerprints in
            var providers: [String: APNSTokenProvider] = [:]
            var results: [PushAppReload] = []
            for member in members {
                var settings = configured[member.settings.name] ?? member.settings
                settings.servesAnyTopic = member.settings.servesAnyTopic
                settings.topic = member.settings.topic
                let outcome: Result<PushAppReload.Outcome, ConfigurationError> = Result { () throws(ConfigurationError) in
                    try replaceCredential(member, settings, configuration, providers: &providers, fingerprints: &fingerprints, metrics: metrics)
                }
                switch outcome {
                case .success(let outcome):
                    results.append(PushAppReload(app: settings.name, outcome: outcome))
                case .failure(let error):
                    member.app.updateCredential { $0.reloadError = error.message }
                    logger.error("apns.reload_failed", [("app", settings.name), ("error", error.message)])
                    results.append(PushAppReload(app: settings.name, outcome: .failed, error: error.message))
                }
            }
            return results
        }
    }

    /// Loads one app's credential and, when its files changed, swaps in new clients.
    private func replaceCredential(
        _ member: Member, _ settings: PushServiceConfiguration.AppSettings, _ configuration: PushServiceConfiguration,
        providers: inout [String: APNSTokenProvider], fingerprints: inout [String: [UInt8]], metrics: ServiceMetrics?
    ) throws(ConfigurationError) -> PushAppReload.Outcome {
        let credential = try PushAppCredential.load(settings, providers: &providers)
        try credential.check(serves: settings)
        if credential.fingerprint == fingerprints[settings.name] {
            member.app.updateCredential { $0.reloadError = nil }
            return .unchanged
        }
        // Everything is built before anything is swapped, so a failure leaves the app on its old credential
        // throughout (an unused management client opens no connection and closes when released).
        // Management endpoints stay those of the start (an environment without one keeps none).
        let channels = try Self.channelManagers(configuration, settings, credential)
        let (production, development) = try Self.clients(configuration, settings, credential, logger: logger, health: member.health)
        member.production.replace(with: production)
        member.development.replace(with: development)
        if let manager = channels.production { member.productionChannels?.replace(with: manager) }
        if let manager = channels.development { member.developmentChannels?.replace(with: manager) }
        fingerprints[settings.name] = credential.fingerprint
        member.app.updateCredential { $0 = credential.status }
        if let notAfter = credential.status.notAfter {
            for environment in ["production", "development"] {
                metrics?.setCertificateNotAfter(notAfter, app: settings.name, environment: environment)
            }
        }
        logger.info("apns.reloaded", [("app", settings.name), ("credential", credential.status.source ?? "")])
        return .reloaded
    }

    /// Publishes each certificate's end of validity as a metric.
    public func recordCertificates(in metrics: ServiceMetrics) {
        for member in members {
            guard let notAfter = member.app.credential.notAfter else { continue }
            for environment in ["production", "development"] {
                metrics.setCertificateNotAfter(notAfter, app: member.app.name, environment: environment)
            }
        }
    }
}

/// What a reload did to one app's credential.
public struct PushAppReload: Sendable, Equatable {
    /// The outcome of one app's reload.
    public enum Outcome: String, Sendable {
        /// New clients use the new credential; the old ones drain.
        case reloaded
        /// The files are the same: nothing changed.
        case unchanged
        /// The new files cannot be used: the old credential stays.
        case failed
    }

    /// The app's name.
    public var app: String
    /// What happened.
    public var outcome: Outcome
    /// Why it failed.
    public var error: String?

    /// A result.
    public init(app: String, outcome: Outcome, error: String? = nil) {
        self.app = app
        self.outcome = outcome
        self.error = error
    }
}
