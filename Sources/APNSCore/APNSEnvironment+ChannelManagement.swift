/// Apple's channel management endpoints (Apple, "Sending channel management requests to APNs",
/// "Establish a connection to APNs"): separate hosts with ports of their own, 2195 for development and
/// 2196 for production. Broadcasts themselves go to the normal hosts (``APNSEnvironment/production``,
/// ``APNSEnvironment/development``). Channels never cross environments.
extension APNSEnvironment {
    /// Apple's production channel management host name.
    public static let productionChannelManagementHost = "api-manage-broadcast.push.apple.com"
    /// Apple's development (sandbox) channel management host name.
    public static let developmentChannelManagementHost = "api-manage-broadcast.sandbox.push.apple.com"
    /// The production channel management port.
    public static let productionChannelManagementPort = 2196
    /// The development channel management port.
    public static let developmentChannelManagementPort = 2195

    /// `api-manage-broadcast.push.apple.com:2196`, named `production`.
    public static let productionChannelManagement = APNSEnvironment(
        name: "production", host: productionChannelManagementHost, port: productionChannelManagementPort, isDevelopment: false)
    /// `api-manage-broadcast.sandbox.push.apple.com:2195`, named `development`.
    public static let developmentChannelManagement = APNSEnvironment(
        name: "development", host: developmentChannelManagementHost, port: developmentChannelManagementPort, isDevelopment: true)

    /// The channel management endpoint that belongs with this push environment: Apple's for
    /// `.production` and `.development` (whatever their port), nil for a custom host, whose management
    /// listener (a mock's, say) must be named with `.custom(host:port:)`.
    public var channelManagement: APNSEnvironment? {
        switch host {
        case Self.productionHost: .productionChannelManagement
        case Self.developmentHost: .developmentChannelManagement
        default: nil
        }
    }
}
