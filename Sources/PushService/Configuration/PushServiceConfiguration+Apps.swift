import APNSCore
import Foundation
import JSON

extension PushServiceConfiguration {
    /// One app the server pushes for: its bundle id, its credentials (a `.p12`, or a `.p8` with key and
    /// team id; apps of one team may share a `.p8`), optional limits and an optional APNs endpoint of its own.
    public struct AppSettings: Sendable, Equatable {
        /// The name used in metrics, logs, `/healthz` and `pushctl apps ls` (default: the bundle id).
        public var name: String
        /// The bundle id: pushes to it and to it plus a push type's suffix (`.voip`, ...) use this app.
        public var topic: String
        /// More topics the app serves (a `.p12`'s certificate adds the ones it lists).
        public var topics: [String] = []
        /// The provider certificate and key (.p12).
        public var p12Path: String?
        /// The .p12 password. Never logged.
        public var password: String?
        /// Token authentication instead: the `.p8` signing key.
        public var p8Path: String?
        /// The 10-character key id of the `.p8` key.
        public var keyID: String?
        /// The 10-character team id.
        public var teamID: String?
        /// HTTP/2 connections per environment (default `apns.connections`).
        public var connections: Int?
        /// Most of this app's notifications handed to APNs at once (default: no limit of its own).
        public var maxInFlight: Int?
        /// APNs host override for this app (default `apns.host`).
        public var host: String?
        /// APNs port override for this app (default `apns.port`).
        public var port: Int?
        /// Channel management port with this app's host override (default `apns.channel_port`).
        public var channelPort: Int?
        /// CA (PEM) to trust for this app's host override (default `apns.ca`).
        public var caPath: String?
        /// True for the one app of a configuration without `apps`: it takes every topic, as before.
        public var servesAnyTopic = false

        /// An app named after `topic`, without credentials yet.
        public init(topic: String, name: String? = nil) {
            self.topic = topic
            self.name = name ?? topic
        }

        /// The topics named in the configuration: the bundle id first, then `topics`.
        public var configuredTopics: [String] { [topic] + topics.filter { $0 != topic } }

        /// True when the app signs provider tokens instead of presenting a certificate.
        public var usesToken: Bool { !(p8Path ?? "").isEmpty }
    }

    /// The apps in effect: `apps`, or else one app named `default` from `apns` and `topic` that takes
    /// every topic (the configuration of a single-credential server keeps working unchanged).
    public var resolvedApps: [AppSettings] {
        guard apps.isEmpty else { return apps }
        var app = AppSettings(topic: topic ?? "", name: "default")
        app.p12Path = apns.p12Path
        app.password = apns.password
        app.p8Path = apns.p8Path
        app.keyID = apns.keyID
        app.teamID = apns.teamID
        app.servesAnyTopic = true
        return [app]
    }

    /// The topic of devices and pushes that name none: `topic`, else the first app's bundle id.
    public var defaultTopic: String? {
        topic ?? apps.first?.topic
    }

    /// The settings that reach APNs for `app`: the shared ones with the app's credentials and overrides.
    public func apnsSettings(for app: AppSettings) -> APNSSettings {
        var settings = apns
        settings.p12Path = app.p12Path
        settings.password = app.password
        settings.p8Path = app.p8Path
        settings.keyID = app.keyID
        settings.teamID = app.teamID
        if let connections = app.connections { settings.connections = max(1, connections) }
        if let host = app.host { settings.host = host }
        if let port = app.port { settings.port = port }
        if let channelPort = app.channelPort { settings.channelPort = channelPort }
        if let caPath = app.caPath { settings.caPath = caPath }
        return settings
    }

    /// Checks the app list: names and topics unique, one kind of credential each, a `.p8` with its key id
    /// and team id, and no single-app credentials beside a list. Each failure is one line, exit 78.
    func checkApps() throws(ConfigurationError) {
        guard !apps.isEmpty else { return }
        if apns.p12Path != nil || apns.p8Path != nil {
            throw ConfigurationError(
                "apps and the single-app credentials (apns.p12/apns.p8, PUSH_APNS_P12/P8, --apns-p12/p8) cannot both be set: move them into an app")
        }
        var names: Set<String> = []
        var owners: [String: String] = [:]
        for app in apps {
            guard !app.topic.isEmpty else { throw ConfigurationError("app \(app.name): topic (the bundle id) is required") }
            for topic in app.configuredTopics {
                if let other = owners[topic] { throw ConfigurationError("topic \(topic) is served by two apps: \(other) and \(app.name)") }
                owners[topic] = app.name
            }
            guard names.insert(app.name).inserted else { throw ConfigurationError("app name \(app.name) is used twice") }
            let hasP12 = !(app.p12Path ?? "").isEmpty
            if hasP12 == app.usesToken {
                throw ConfigurationError("app \(app.name): set either p12 (a certificate) or p8 with key_id and team_id (a signing key)")
            }
            if app.usesToken, app.keyID == nil || app.teamID == nil {
                throw ConfigurationError("app \(app.name): token authentication needs key_id and team_id beside p8")
            }
        }
    }

    /// Parses the `apps` array of the configuration file.
    static func apps(json list: [JSONValue]) throws(APIError) -> [AppSettings] {
        var apps: [AppSettings] = []
        for (index, value) in list.enumerated() {
            guard case .object = value else { throw .invalidField("apps[\(index)]", "must be an object") }
            let fields = try JSONFields(value)
            try fields.checkKnown([
                "name", "topic", "topics", "p12", "password", "p8", "key_id", "team_id", "connections",
                "max_in_flight", "host", "port", "channel_port", "ca",
            ])
            var app = AppSettings(topic: try fields.string("topic") ?? "")
            app.name = try fields.string("name") ?? app.topic
            if let extra = try fields.array("topics") {
                app.topics = try extra.map { value throws(APIError) -> String in
                    guard case .string(let topic) = value, !topic.isEmpty else {
                        throw .invalidField("apps[\(index)].topics", "must list topics as strings")
                    }
                    return topic
                }
            }
            app.p12Path = try fields.string("p12")
            app.password = try fields.string("password")
            app.p8Path = try fields.string("p8")
            app.keyID = try fields.string("key_id")
            app.teamID = try fields.string("team_id")
            app.connections = try fields.int("connections").map { max(1, $0) }
            app.maxInFlight = try fields.int("max_in_flight").map { max(1, $0) }
            app.host = try fields.string("host")
            app.port = try fields.int("port")
            app.channelPort = try fields.int("channel_port")
            app.caPath = try fields.string("ca")
            apps.append(app)
        }
        return apps
    }
}
