import APNS
import APNSCore
import ArgumentParsing
import Foundation
import PushProcess

/// What `push-server` does: load and check the configuration, start the service (with the embedded mock
/// APNs when asked), print how to use it, and run until SIGTERM or SIGINT.
public enum PushServerLauncher {
    /// Runs the program with `arguments` (without the program name); returns the exit code. `embeddedAPNS`
    /// starts the servers of `--embedded` (nil: the program has none, and `--embedded` exits 78).
    public static func main(
        arguments: [String], environment: [String: String], embeddedAPNS: (any EmbeddedAPNSProvider)? = nil
    ) async -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(PushServiceConfiguration.usage)
            return 0
        }
        if arguments.contains("--version") {
            print("push-server \(ProgramVersion.current)")
            return 0
        }
        // Per-request buffers of 256 KB and more (5,000-token bodies, row lists, answers) come and go all
        // the time; keep them out of the malloc arenas so peak memory stays near what is live.
        ProcessMemory.fixMmapThreshold()
        let launched: Launched
        do {
            var configuration = try PushServiceConfiguration.load(arguments: arguments, environment: environment)
            launched = try await launch(&configuration, embeddedAPNS: embeddedAPNS)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("push-server: \(error.message)\n".utf8))
            return error.exitCode
        } catch {
            FileHandle.standardError.write(Data("push-server: cannot start: \(error)\n".utf8))
            return 1
        }
        // Handlers go in before the banner announces readiness, so an early SIGTERM still drains cleanly.
        let signals = SignalWaiter([SIGTERM, SIGINT, SIGHUP])
        printBanner(launched)
        let systemd = await SystemdSupervision.start(launched.server, environment: environment)
        systemd?.ready()
        // Reloads read the configuration file, environment and flags again (for new API keys and paths).
        let embeddedKeys = launched.configuration.embedded ? launched.configuration.apiKeys : []
        let embeddedApps = launched.configuration.embedded ? launched.configuration.apps : []
        launched.server.setReloadSource {
            var configuration = try PushServiceConfiguration.load(arguments: arguments, environment: environment)
            if configuration.apiKeys.isEmpty { configuration.apiKeys = embeddedKeys }
            if configuration.apps.isEmpty, !embeddedApps.isEmpty { configuration.apps = embeddedApps }
            return configuration
        }
        var received = await signals.wait()
        while received == SIGHUP {
            systemd?.reloading()
            // A reload that fails keeps serving with what was loaded before (and says why in the log).
            await launched.server.reload()
            systemd?.ready()
            received = await signals.wait()
        }
        let signal = SignalWaiter.name(of: received)
        launched.server.logger.info("server.signal", [("signal", signal)])
        await systemd?.stopping()
        await launched.server.shutdown()
        launched.embedded?.stop()
        return 0
    }

    struct Launched {
        var server: PushServer
        var embedded: EmbeddedAPNSServers?
        var configuration: PushServiceConfiguration
        /// The generated key of the embedded mode and the file it is saved in (printed in the banner).
        var generatedKey: (key: String, path: String)?
    }

    static func launch(
        _ configuration: inout PushServiceConfiguration, embeddedAPNS: (any EmbeddedAPNSProvider)? = nil
    ) async throws -> Launched {
        let logger = ServiceLogger(level: configuration.logLevel)
        var embedded: EmbeddedAPNSServers?
        var generatedKey: (key: String, path: String)?
        try StartupChecks.database(configuration)
        if configuration.embedded {
            guard let embeddedAPNS else {
                throw ConfigurationError("--embedded is not available: this program has no embedded mock APNs")
            }
            let servers: EmbeddedAPNSServers
            do {
                servers = try embeddedAPNS.start(dataDirectory: configuration.dataDirectory, topic: configuration.topic)
            } catch {
                throw ConfigurationError("cannot set up the embedded mock APNs in \(configuration.dataDirectory): \(error)")
            }
            embedded = servers
            configuration.topic = servers.apps.first?.topic ?? configuration.topic
            configuration.apps = servers.apps
            if configuration.apiKeys.isEmpty {
                let key = try APIKeyFile.loadOrCreate(dataDirectory: configuration.dataDirectory)
                configuration.apiKeys = [try APIKey(name: "embedded", secret: key)]
                generatedKey = (key, URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("api-key").path)
            }
        }
        try StartupChecks.apiKeys(configuration.apiKeys)
        let apps = try PushAppSet.build(configuration, logger: logger)
        let server: PushServer
        do {
            server = try await PushServer.start(configuration: configuration, apps: apps, logger: logger)
        } catch let error as ConfigurationError {
            await apps.senders.shutdown(deadline: .zero)
            throw error
        } catch {
            await apps.senders.shutdown(deadline: .zero)
            throw ConfigurationError("database \(configuration.databaseDescription) cannot be opened: \(error)")
        }
        if let view = embedded?.consoleView { server.showMock(view) }
        return Launched(server: server, embedded: embedded, configuration: configuration, generatedKey: generatedKey)
    }

    /// The two APNs clients `settings` describe (certificate or token credentials, host override, CA),
    /// after the same checks the start-up runs, as one app that takes every topic.
    public static func makeSenders(for settings: PushServiceConfiguration.APNSSettings) throws -> PushSenders {
        let credentials = try StartupChecks.credentials(settings)
        let trustedCA = try StartupChecks.trustedCA(settings)
        let (production, development) = try clients(settings, credentials: credentials, trustedCA: trustedCA)
        let channels = try channelManagers(settings, credentials: credentials, trustedCA: trustedCA)
        return PushSenders(apps: [
            PushApp(
                name: "default", topics: [], servesAnyTopic: true, production: production, development: development,
                productionChannels: channels.production, developmentChannels: channels.development)
        ])
    }

    /// One APNs client per environment (both pointed at the override host when one is set), through the
    /// configured proxy; with a `logger`, failed connections are logged under `app`. `maxPending` bounds
    /// the notifications each client has waiting or in flight (the app's `max_in_flight`).
    static func clients(
        _ settings: PushServiceConfiguration.APNSSettings,
        credentials: APNSClientConfiguration.Credentials, trustedCA: String?,
        logger: ServiceLogger? = nil, app: String = "default", maxPending: Int? = nil,
        health: AppConnectionHealth? = nil
    ) throws -> (production: APNSClient, development: APNSClient) {
        func client(_ base: APNSEnvironment, development: Bool) throws -> APNSClient {
            var environment = base
            if let host = settings.host {
                environment = .custom(
                    host: host, port: settings.port ?? APNSEnvironment.defaultPort,
                    isDevelopment: development)
            } else if let port = settings.port {
                environment = base.with(port: port)
            }
            var configuration = APNSClientConfiguration(
                credentials: credentials, environment: environment,
                connections: settings.connections, trustedCAPEM: trustedCA)
            configuration.requestTimeout = .seconds(30)
            configuration.proxy = settings.proxy(for: environment.host)
            if let maxPending { configuration.maxPendingRequests = maxPending }
            // A refused certificate fails this app's sends at once (they go back to the outbox with back-off)
            // instead of holding the worker's in-flight slots, shared with the other apps, for 30 s.
            configuration.failsFastOnHandshakeFailure = true
            if let logger {
                configuration.metrics = APNSConnectionLog(
                    logger: logger, app: app, environment: development ? "development" : "production", health: health)
            }
            return try APNSClient(configuration: configuration)
        }
        return (try client(.production, development: false), try client(.development, development: true))
    }

    /// The channel management clients of `settings` per environment: Apple's management hosts, or with a
    /// host override the same host at `channel_port` (nil without one: channels cannot be created there).
    static func channelManagers(
        _ settings: PushServiceConfiguration.APNSSettings,
        credentials: APNSClientConfiguration.Credentials, trustedCA: String?
    ) throws -> (production: (any APNSChannelManaging)?, development: (any APNSChannelManaging)?) {
        func channels(_ base: APNSEnvironment, development: Bool) throws -> (any APNSChannelManaging)? {
            let environment: APNSEnvironment
            if settings.host != nil {
                guard let host = settings.host, let port = settings.channelPort else { return nil }
                environment = .custom(host: host, port: port, isDevelopment: development)
            } else {
                guard let management = base.channelManagement else { return nil }
                environment = management
            }
            var configuration = APNSClientConfiguration(
                credentials: credentials, environment: environment, trustedCAPEM: trustedCA)
            configuration.requestTimeout = .seconds(30)
            configuration.proxy = settings.proxy(for: environment.host)
            return try APNSChannelManagementClient(configuration: configuration)
        }
        return (try channels(.production, development: false), try channels(.development, development: true))
    }

    private static func printBanner(_ launched: Launched) {
        let configuration = launched.configuration
        let address = "\(configuration.host):\(launched.server.port)"
        let scheme = configuration.tls.isEnabled ? "https" : "http"
        var lines = ["listening on \(address)", "console: \(scheme)://\(address)/console"]
        if let embedded = launched.embedded {
            // A configured key is never printed; the examples then show where it goes.
            let key = launched.generatedKey?.key ?? "$PUSH_API_KEY"
            let url = "\(scheme)://\(address)"
            lines += embedded.banner
            lines += [
                launched.generatedKey.map { "API key: \($0.key) (saved in \($0.path))" } ?? "API key: the one you configured",
                "",
                "Try it:",
                "  curl -s -X PUT \(url)/v1/users/alice -H 'Authorization: Bearer \(key)' -d '{\"name\":\"Alice\",\"dog_name\":\"Rex\"}'",
                "  curl -s -X POST \(url)/v1/devices -H 'Authorization: Bearer \(key)' -d '{\"token\":\"\(String(repeating: "ab", count: 32))\",\"user_id\":\"alice\",\"environment\":\"development\"}'",
                "  curl -s -X POST '\(url)/v1/pushes?wait=true' -H 'Authorization: Bearer \(key)' -d '{\"user_id\":\"alice\",\"alert\":{\"title\":\"Woof\",\"body\":\"Rex says hi\"}}'",
                "  pushctl send --url \(url) --user alice --title Woof --body 'Rex says hi' --wait",
                "Press Ctrl-C to stop.",
            ]
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
