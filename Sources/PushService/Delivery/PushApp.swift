public import APNS
public import APNSCore
public import Foundation
import PushSync

/// One app: its name, the topics it serves, its own limit and one sender (its own APNs client and
/// connections) per environment, so one app's throttling or failing credentials touch no other app.
public final class PushApp: Sendable {
    /// The name in metrics, logs and `/healthz`.
    public let name: String
    /// Topics the app serves (bundle id, extra topics, the certificate's topics).
    public let topics: [String]
    /// True when the app takes every topic no other app serves.
    public let servesAnyTopic: Bool
    /// Most of this app's notifications handed to APNs at once; nil: only the server's limit.
    public let maxInFlight: Int?
    /// For devices registered with `.production`.
    public let production: any APNSSender
    /// For devices registered with `.development`.
    public let development: any APNSSender
    /// Channel management in production (nil: channels cannot be created there).
    public let productionChannels: (any APNSChannelManaging)?
    /// Channel management in the development environment (nil: channels cannot be created there).
    public let developmentChannels: (any APNSChannelManaging)?
    private let status: PThreadLock<PushAppStatus>
    /// Connection failures of the app's clients (kept when they are built by `PushAppSet`).
    public let connections: AppConnectionHealth

    /// An app with its senders; `credential` describes them for `/healthz`.
    public init(
        name: String, topics: [String], servesAnyTopic: Bool = false, maxInFlight: Int? = nil,
        production: any APNSSender, development: any APNSSender, credential: PushAppStatus = PushAppStatus(),
        connections: AppConnectionHealth = AppConnectionHealth(),
        productionChannels: (any APNSChannelManaging)? = nil, developmentChannels: (any APNSChannelManaging)? = nil
    ) {
        self.name = name
        self.topics = topics
        self.servesAnyTopic = servesAnyTopic
        self.maxInFlight = maxInFlight
        self.production = production
        self.development = development
        status = PThreadLock(credential)
        self.connections = connections
        self.productionChannels = productionChannels
        self.developmentChannels = developmentChannels
    }

    /// The sender for an outbox row's environment.
    public func sender(for environment: APNSEnvironment) -> any APNSSender {
        environment.isDevelopment ? development : production
    }

    /// The channel manager for `environment`, if there is one.
    public func channels(for environment: APNSEnvironment) -> (any APNSChannelManaging)? {
        environment.isDevelopment ? developmentChannels : productionChannels
    }

    /// The credential's state now.
    public var credential: PushAppStatus {
        status.withLock { $0 }
    }

    /// Changes the credential's state (after a reload, successful or not).
    public func updateCredential(_ change: (inout PushAppStatus) -> Void) {
        status.withLock { change(&$0) }
    }
}

/// What an app authenticates with and how its last reload went.
public struct PushAppStatus: Sendable, Equatable {
    /// `certificate`, `token` or `custom` (senders built by the caller).
    public var kind = "custom"
    /// The file the credential was read from.
    public var source: String?
    /// The certificate's end of validity (certificates only).
    public var notAfter: Date?
    /// The topics the certificate lists (certificates only).
    public var certificateTopics: [String] = []
    /// The token's key id and team id (tokens only).
    public var keyID: String?
    /// The team id (tokens only).
    public var teamID: String?
    /// When the credential in use was loaded.
    public var loadedAt = Date()
    /// Why the last reload kept the old credential; nil after a good one.
    public var reloadError: String?

    /// A status for senders built by the caller.
    public init() {}
}
