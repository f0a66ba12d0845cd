/// Header names, paths and limits of broadcast push and channel management.
///
/// Sources: Apple's "Sending channel management requests to APNs" (management hosts, paths, headers,
/// body fields), "Sending broadcast push notification requests to APNs" (broadcast path, headers, the
/// 5 KB payload limit) and "Handling error responses from Apple Push Notification service" (reasons).
extension APNSHeader {
    /// Request and response: a canonical UUID naming one broadcast or management request. APNs echoes
    /// it, or makes one up when the request had none.
    public static let requestID = "apns-request-id"
    /// Request: the base64 channel id a broadcast goes to, or a management request reads or deletes;
    /// response of a create: the new channel's id.
    public static let channelID = "apns-channel-id"
    /// The broadcast request path prefix; the bundle ID follows: `/4/broadcasts/apps/<bundle ID>`.
    ///
    /// Apple's broadcast page writes the path `/4/broadcasts/apps/<bundle ID>` in its header table but
    /// `4/broadcasts/apps/...` (no leading slash) in both samples; an HTTP/2 `:path` must start with `/`
    /// (RFC 9113 §8.3.1), so the table's form is the one used.
    public static let broadcastPathPrefix = "/4/broadcasts/apps/"
    /// The management path prefix; `<bundle ID>/channels` or `<bundle ID>/all-channels` follows.
    public static let channelManagementPathPrefix = "/1/apps/"
    /// The management path suffix for create, read and delete.
    public static let channelPathSuffix = "/channels"
    /// The management path suffix for listing every channel of a bundle ID.
    public static let allChannelsPathSuffix = "/all-channels"
    /// The most bytes a broadcast payload may hold (Apple: 5 KB, 5,120 bytes).
    public static let maxBroadcastPayloadBytes = 5120
    /// The most channels an app may keep per environment (Apple: 10,000 in development and in production).
    public static let maxChannelsPerApp = 10_000
}
