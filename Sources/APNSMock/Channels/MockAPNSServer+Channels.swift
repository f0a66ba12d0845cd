public import APNSCore

extension MockAPNSServer {
    /// Starts the channel management listener on `host:port` (0 picks a free port; Apple uses 2195 in
    /// development and 2196 in production). Stop it with its own `stop()`.
    public func startChannelServer(host: String? = nil, port: Int = 0) throws -> MockAPNSChannelServer {
        try MockAPNSChannelServer(core: core, host: host ?? configuration.host, port: port)
    }

    /// Creates a channel directly (as a management request would), or nil at the channel limit.
    @discardableResult
    public func createChannel(bundleID: String, storagePolicy: APNSMessageStoragePolicy) -> MockAPNSChannel? {
        core.channels.create(bundleID: bundleID, storagePolicy: storagePolicy, pushType: "LiveActivity")
    }

    /// The channels of `bundleID`, in creation order.
    public func channels(bundleID: String) -> [MockAPNSChannel] {
        core.channels.channels(bundleID: bundleID)
    }

    /// How many random bytes the id of a channel created from now on encodes: 16 unless changed. Apple
    /// says not to assume the size ("Sending channel management requests to APNs"), so a test can hand
    /// out longer ids than any seen so far.
    public var channelIDByteCount: Int {
        get { core.channels.idByteCount }
        set { core.channels.idByteCount = newValue }
    }

    /// The most channels one app may have; Apple's 10,000 unless changed.
    public var channelLimit: Int {
        get { core.channels.limit }
        set { core.channels.limit = newValue }
    }

    /// Turns an app's broadcast capability on or off (it is on for every app at first). Off deletes all
    /// its channels, as Apple does; broadcasts and management requests then get 400 FeatureNotEnabled.
    public func setBroadcastCapability(_ enabled: Bool, bundleID: String) {
        core.channels.setEnabled(enabled, bundleID: bundleID)
    }

    /// Every broadcast decided on `channelID` (accepted or not), in decision order: records like device
    /// pushes', whose `token` is the request path, `topic` the bundle ID and `apnsID` the `apns-request-id`.
    public func broadcasts(channelID: APNSChannelID) -> [MockAPNSRecord] {
        core.recorder.records.filter { $0.channelID == channelID.rawValue }
    }

    /// Every broadcast decided, in decision order.
    public func broadcasts() -> [MockAPNSRecord] {
        core.recorder.records.filter(\.isBroadcast)
    }

    /// Waits (woken by each new record, no polling) until `count` broadcasts on `channelID` were decided
    /// and returns them, or nil when `timeout` passes first or the task is cancelled.
    public func waitForBroadcasts(count: Int, channelID: APNSChannelID, timeout: Duration) async -> [MockAPNSRecord]? {
        await waitForRecords(count: count, matching: MockAPNSRecordFilter(channelID: channelID.rawValue), timeout: timeout)
    }

    /// The channel management requests answered, oldest first.
    public func channelRequests() -> [MockAPNSChannelRequestRecord] {
        core.channels.requests
    }

    /// Forgets every channel, capability change and management record.
    public func clearChannels() {
        core.channels.clear()
    }
}

extension MockAPNSRecord {
    /// Whether this record is a broadcast (`POST /4/broadcasts/apps/<bundle ID>`).
    public var isBroadcast: Bool {
        MockAPNSBroadcastRules.isBroadcast(token)
    }

    /// The `apns-channel-id` of a broadcast; nil for a device push.
    public var channelID: String? {
        isBroadcast ? header(APNSHeader.channelID) : nil
    }
}
