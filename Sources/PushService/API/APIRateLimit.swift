/// A key's token buckets: requests per second and notifications per second, each with a burst.
public struct APIRateLimit: Sendable, Equatable {
    /// Requests refilled per second (nil: unlimited).
    public var requestsPerSecond: Double?
    /// Most requests taken at once; defaults to one second's worth (at least 1).
    public var requestBurst: Double?
    /// Notifications (tokens addressed by `POST /v1/pushes`) refilled per second (nil: unlimited).
    public var notificationsPerSecond: Double?
    /// Most notifications taken at once; defaults to one second's worth (at least 1).
    public var notificationBurst: Double?

    /// A limit; nil fields are unlimited.
    public init(
        requestsPerSecond: Double? = nil, requestBurst: Double? = nil,
        notificationsPerSecond: Double? = nil, notificationBurst: Double? = nil
    ) {
        self.requestsPerSecond = requestsPerSecond
        self.requestBurst = requestBurst
        self.notificationsPerSecond = notificationsPerSecond
        self.notificationBurst = notificationBurst
    }

    /// The request bucket's capacity in effect.
    var effectiveRequestBurst: Double? {
        requestsPerSecond.map { requestBurst ?? max(1, $0) }
    }

    /// The notification bucket's capacity in effect.
    var effectiveNotificationBurst: Double? {
        notificationsPerSecond.map { notificationBurst ?? max(1, $0) }
    }
}
