/// The names of the HTTP/2 headers APNs reads and writes, all lowercase as HTTP/2 requires.
public enum APNSHeader {
    /// Request: the bundle ID, plus a push-type suffix.
    public static let topic = "apns-topic"
    /// Request: the push type.
    public static let pushType = "apns-push-type"
    /// Request: 10, 5 or 1.
    public static let priority = "apns-priority"
    /// Request: epoch seconds, 0 for deliver-once.
    public static let expiration = "apns-expiration"
    /// Request: at most 64 bytes; newer notifications with the same id replace older ones.
    public static let collapseID = "apns-collapse-id"
    /// Request and response: the notification's UUID.
    public static let id = "apns-id"
    /// Response, development only: a UUID for looking the notification up in the delivery log.
    public static let uniqueID = "apns-unique-id"
    /// Request, token auth only: `bearer <JWT>`.
    public static let authorization = "authorization"
    /// The prefix of the authorization value.
    public static let bearerPrefix = "bearer "
    /// The request path prefix; the device token follows.
    public static let devicePathPrefix = "/3/device/"
    /// The most bytes `apns-collapse-id` may hold.
    public static let maxCollapseIDBytes = 64
}
