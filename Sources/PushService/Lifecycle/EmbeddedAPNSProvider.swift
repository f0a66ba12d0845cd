/// Starts the in-process APNs servers of `push-server --embedded` and names the apps that use them.
///
/// The service has no mock APNs of its own: a program that offers the embedded mode hands a provider to
/// `PushServerLauncher.main` (`push-server` passes `EmbeddedMockAPNS` from the `EmbeddedAPNS` module).
/// Without one, `--embedded` is refused as a configuration error.
public protocol EmbeddedAPNSProvider: Sendable {
    /// Starts the servers, with any credentials they make written under `dataDirectory`, for an app whose
    /// topic is `topic` (nil: the provider's default). The first app returned serves that topic.
    func start(dataDirectory: String, topic: String?) throws -> EmbeddedAPNSServers
}

/// Running embedded APNs servers: the apps configured to use them, what the start-up banner says about
/// them, and how to stop them.
public struct EmbeddedAPNSServers: Sendable {
    /// The apps to serve; the first one's topic becomes the default topic.
    public var apps: [PushServiceConfiguration.AppSettings]
    /// Lines for the start-up banner: what runs and where its credentials are.
    public var banner: [String]
    /// What the web console shows of the servers (their control APIs and what they received), if anything.
    public var consoleView: ConsoleMockView?
    private let stopServers: @Sendable () -> Void

    /// Servers used by `apps`, described by `banner`, shown in the console by `consoleView`, stopped by `stop`.
    public init(
        apps: [PushServiceConfiguration.AppSettings], banner: [String], consoleView: ConsoleMockView? = nil,
        stop: @escaping @Sendable () -> Void
    ) {
        self.apps = apps
        self.banner = banner
        self.consoleView = consoleView
        stopServers = stop
    }

    /// Stops the servers (after the service has shut down).
    public func stop() {
        stopServers()
    }
}
