public import APNSCore
import JSON
import PushHTTP
import PushHTTP2
package import PushIO
import PushTLS
import Synchronization

/// A client for Apple's broadcast channel management API (Apple, "Sending channel management requests
/// to APNs"): create a channel, read its configuration, list a bundle ID's channels, delete one.
///
/// It talks to the management hosts, not the push hosts: ``APNSEnvironment/developmentChannelManagement``
/// (`api-manage-broadcast.sandbox.push.apple.com:2195`), ``APNSEnvironment/productionChannelManagement``
/// (`api-manage-broadcast.push.apple.com:2196`), or `.custom(host:port:)` for a mock's management
/// listener. Authentication is that of ``APNSClient``: a client certificate (`.p12`, PEM) or a provider
/// token (`.p8`), whose `authorization` header every request carries; pass `.tokenProvider` to share
/// one token with the team's push clients.
///
/// Every call takes an optional `requestID` (a canonical UUID, sent as `apns-request-id`); without one
/// APNs makes one up. Results and rejections carry the id APNs answered with. Failures throw
/// ``APNSChannelManagementError``: Apple's status and reason, a transport error, or a malformed answer.
///
/// ```swift
/// let channels = try APNSChannelManagementClient(configuration: .init(
///     credentials: .token(key), environment: .developmentChannelManagement))
/// let created = try await channels.createChannel(bundleID: "com.example.app", storagePolicy: .noMessageStored)
/// ```
public final class APNSChannelManagementClient: Sendable {
    /// `push-type` of a channel: Apple allows only `LiveActivity` (the management page's spelling).
    public static let liveActivityPushType = "LiveActivity"

    /// The configuration the client was made with; its environment names the management endpoint.
    public let configuration: APNSClientConfiguration
    /// The provider token source with token auth, else nil.
    public let tokenProvider: APNSTokenProvider?
    private let loop: EventLoop
    /// The client's event loop (its connection lives there), for a watchdog that checks it still turns.
    package var eventLoop: EventLoop { loop }
    /// Every access checks it runs on `loop`'s thread.
    let transport: LoopBound<APNSChannelManagementTransport>
    private let closed = Atomic<Bool>(false)

    /// Loads the credentials and prepares TLS; the connection opens on the first request.
    /// `configuration.environment` must be a management endpoint (see the type's overview).
    public init(configuration: APNSClientConfiguration) throws {
        self.configuration = configuration
        let tls = try configuration.makeTLSContext()
        tokenProvider = try configuration.makeTokenProvider()
        loop = EventLoop(name: "apns-channels")
        transport = LoopBound(
            handingOver: APNSChannelManagementTransport(loop: loop, configuration: configuration, tls: tls, tokenProvider: tokenProvider),
            to: loop)
    }

    deinit {
        loop.shutdown()
    }

    /// Creates a channel for `bundleID` with `storagePolicy` (fixed for the channel's life) and push type
    /// `LiveActivity`: `POST /1/apps/<bundle ID>/channels`, 201 with the id in `apns-channel-id`.
    /// APNs refuses with `CannotCreateChannelConfig` once the app has 10,000 channels in the environment.
    public func createChannel(
        bundleID: String, storagePolicy: APNSMessageStoragePolicy, requestID: String? = nil
    ) async throws(APNSChannelManagementError) -> APNSCreatedChannel {
        let body: JSONValue = [
            "message-storage-policy": .int(Int64(storagePolicy.rawValue)),
            "push-type": .string(Self.liveActivityPushType),
        ]
        let response = try await perform(
            method: "POST", bundleID: bundleID, suffix: APNSHeader.channelPathSuffix, channelID: nil, requestID: requestID,
            body: body.serialized())
        let answeredID = response.header(APNSHeader.requestID)
        guard let text = response.header(APNSHeader.channelID), !text.isEmpty else {
            throw .malformedResponse(status: response.status, message: "no apns-channel-id header", requestID: answeredID)
        }
        return APNSCreatedChannel(channelID: APNSChannelID(text), requestID: answeredID)
    }

    /// Reads a channel's configuration: `GET /1/apps/<bundle ID>/channels` with `apns-channel-id`;
    /// `ChannelNotRegistered` when it does not exist (or was deleted).
    public func channel(
        _ channelID: APNSChannelID, bundleID: String, requestID: String? = nil
    ) async throws(APNSChannelManagementError) -> APNSChannelConfiguration {
        let response = try await perform(
            method: "GET", bundleID: bundleID, suffix: APNSHeader.channelPathSuffix, channelID: channelID, requestID: requestID)
        let answeredID = response.header(APNSHeader.requestID)
        guard let json = try? JSONValue.parse(response.body),
            let policy = json["message-storage-policy"]?.int64Value.flatMap({ APNSMessageStoragePolicy(rawValue: Int($0)) }),
            let pushType = json["push-type"]?.stringValue
        else {
            throw .malformedResponse(
                status: response.status, message: "body is not {message-storage-policy, push-type}", requestID: answeredID)
        }
        return APNSChannelConfiguration(channelID: channelID, storagePolicy: policy, pushType: pushType, requestID: answeredID)
    }

    /// Lists every channel of `bundleID` in this environment: `GET /1/apps/<bundle ID>/all-channels`,
    /// whose body is `{"channels": [...]}`.
    ///
    /// Apple's page says this answer's body is empty, then documents its `channels` key; the key is
    /// what is read, and an empty body counts as no channels.
    public func channels(bundleID: String, requestID: String? = nil) async throws(APNSChannelManagementError) -> APNSChannelList {
        let response = try await perform(
            method: "GET", bundleID: bundleID, suffix: APNSHeader.allChannelsPathSuffix, channelID: nil, requestID: requestID)
        let answeredID = response.header(APNSHeader.requestID)
        if response.body.isEmpty { return APNSChannelList(channelIDs: [], requestID: answeredID) }
        guard let json = try? JSONValue.parse(response.body), let items = json["channels"]?.arrayValue else {
            throw .malformedResponse(status: response.status, message: "body is not {channels: [...]}", requestID: answeredID)
        }
        var ids: [APNSChannelID] = []
        for item in items {
            guard let text = item.stringValue else {
                throw .malformedResponse(status: response.status, message: "a channel id is not a string", requestID: answeredID)
            }
            ids.append(APNSChannelID(text))
        }
        return APNSChannelList(channelIDs: ids, requestID: answeredID)
    }

    /// Deletes a channel for good: `DELETE /1/apps/<bundle ID>/channels` with `apns-channel-id`, 204.
    /// Its id is never handed out again; APNs may still deliver what it stored for it.
    public func deleteChannel(
        _ channelID: APNSChannelID, bundleID: String, requestID: String? = nil
    ) async throws(APNSChannelManagementError) -> APNSDeletedChannel {
        let response = try await perform(
            method: "DELETE", bundleID: bundleID, suffix: APNSHeader.channelPathSuffix, channelID: channelID, requestID: requestID)
        return APNSDeletedChannel(channelID: channelID, requestID: response.header(APNSHeader.requestID))
    }

    /// Stops taking requests, fails those waiting to be resent, lets open ones finish (each ends by its
    /// own deadline at the latest), closes the connection and stops the event loop.
    public func shutdown() async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        let transport = self.transport
        try? await loop.submit { transport.value.close() }
    }
}
