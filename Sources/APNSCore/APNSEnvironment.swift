/// Where APNs requests go: Apple's production or development (sandbox) service, or a custom host.
public struct APNSEnvironment: Hashable, Sendable, CustomStringConvertible {
    /// A short name: `production`, `development` or `custom`.
    public let name: String
    /// The host to connect to.
    public let host: String
    /// The TCP port: 443, or Apple's alternative 2197.
    public let port: Int
    /// Whether APNs treats requests as development (sandbox): tokens from debug builds, `apns-unique-id` echoed.
    public let isDevelopment: Bool

    /// Apple's production host name.
    public static let productionHost = "api.push.apple.com"
    /// Apple's development (sandbox) host name.
    public static let developmentHost = "api.sandbox.push.apple.com"
    /// Apple's standard HTTPS port.
    public static let defaultPort = 443
    /// Apple's alternative port, for networks that block outbound 443.
    public static let alternativePort = 2197

    /// `api.push.apple.com:443`.
    public static let production = APNSEnvironment(
        name: "production", host: productionHost, port: defaultPort, isDevelopment: false)
    /// `api.sandbox.push.apple.com:443`.
    public static let development = APNSEnvironment(
        name: "development", host: developmentHost, port: defaultPort, isDevelopment: true)

    /// `.production` or `.development` by their names, as stores and configuration files spell them.
    public init?(named name: String) {
        switch name {
        case "production": self = .production
        case "development": self = .development
        default: return nil
        }
    }

    init(name: String, host: String, port: Int, isDevelopment: Bool) {
        self.name = name
        self.host = host
        self.port = port
        self.isDevelopment = isDevelopment
    }

    /// Any host, such as a mock APNs server; Apple's host names keep their usual name and mode.
    public static func custom(host: String, port: Int, isDevelopment: Bool = false) -> APNSEnvironment {
        switch host.lowercased() {
        case productionHost:
            return APNSEnvironment(name: "production", host: productionHost, port: port, isDevelopment: false)
        case developmentHost:
            return APNSEnvironment(name: "development", host: developmentHost, port: port, isDevelopment: true)
        default:
            return APNSEnvironment(name: "custom", host: host, port: port, isDevelopment: isDevelopment)
        }
    }

    /// This environment on another port, e.g. `APNSEnvironment.production.with(port: 2197)`.
    public func with(port: Int) -> APNSEnvironment {
        APNSEnvironment(name: name, host: host, port: port, isDevelopment: isDevelopment)
    }

    /// `name (host:port)`.
    public var description: String {
        "\(name) (\(host):\(port))"
    }
}
