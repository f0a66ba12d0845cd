public import APNSCore

/// What a channel manager does, so a service can hold Apple's (``APNSChannelManagementClient``) or a
/// fake of its own: create, read, list and delete the broadcast channels of a bundle ID in one
/// environment. Failures are ``APNSChannelManagementError``s with Apple's reasons.
public protocol APNSChannelManaging: Sendable {
    /// Creates a Live Activity channel with `storagePolicy`; `requestID` is sent as `apns-request-id`.
    func createChannel(
        bundleID: String, storagePolicy: APNSMessageStoragePolicy, requestID: String?
    ) async throws(APNSChannelManagementError) -> APNSCreatedChannel

    /// Reads a channel's configuration.
    func channel(_ channelID: APNSChannelID, bundleID: String, requestID: String?) async throws(APNSChannelManagementError)
        -> APNSChannelConfiguration

    /// Lists the channels of `bundleID`.
    func channels(bundleID: String, requestID: String?) async throws(APNSChannelManagementError) -> APNSChannelList

    /// Deletes a channel for good.
    func deleteChannel(_ channelID: APNSChannelID, bundleID: String, requestID: String?) async throws(APNSChannelManagementError)
        -> APNSDeletedChannel

    /// Stops taking requests and closes the connection once the open ones finished (a manager replaced
    /// after a credential reload is shut down this way). Does nothing unless the manager says otherwise.
    func shutdown() async
}

extension APNSChannelManaging {
    /// Nothing to close.
    public func shutdown() async {}
}

extension APNSChannelManagementClient: APNSChannelManaging {}
