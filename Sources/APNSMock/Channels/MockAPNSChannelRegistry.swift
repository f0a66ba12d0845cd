public import APNSCore
public import Foundation
import PushSync

/// The broadcast channels of one mock server (one environment, as Apple keeps channels apart per
/// environment), the apps whose broadcast capability is off, and the channel limit. Thread-safe.
final class MockAPNSChannelRegistry: Sendable {
    private struct State {
        var channels: [String: MockAPNSChannel] = [:]
        /// Channel ids per bundle ID, in creation order.
        var byBundle: [String: [String]] = [:]
        var disabled: Set<String> = []
        var limit = APNSHeader.maxChannelsPerApp
        var idBytes = 16
        var random = MockRandom.systemSeeded()
        var requests: [MockAPNSChannelRequestRecord] = []
    }

    private let state = PThreadLock(State())

    /// Creates a channel; nil when `bundleID` already has `limit` channels (CannotCreateChannelConfig).
    func create(bundleID: String, storagePolicy: APNSMessageStoragePolicy, pushType: String) -> MockAPNSChannel? {
        state.withLock { state -> MockAPNSChannel? in
            guard state.byBundle[bundleID, default: []].count < state.limit else { return nil }
            var id: String
            repeat {
                // Apple's ids are base64 of bytes it chooses, of a size it does not promise; 16 random bytes
                // stand in for them unless `idByteCount` says otherwise.
                var bytes = [UInt8](repeating: 0, count: state.idBytes)
                for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: state.random.next()) }
                id = Data(bytes).base64EncodedString()
            } while state.channels[id] != nil
            let channel = MockAPNSChannel(
                id: APNSChannelID(id), bundleID: bundleID, storagePolicy: storagePolicy, pushType: pushType, created: Date())
            state.channels[id] = channel
            state.byBundle[bundleID, default: []].append(id)
            return channel
        }
    }

    /// The channel `id` of `bundleID`, if it exists (another app's channel does not count).
    func channel(_ id: String, bundleID: String) -> MockAPNSChannel? {
        state.withLock { state in state.channels[id].flatMap { $0.bundleID == bundleID ? $0 : nil } }
    }

    /// The channels of `bundleID`, in creation order.
    func channels(bundleID: String) -> [MockAPNSChannel] {
        state.withLock { state in state.byBundle[bundleID, default: []].compactMap { state.channels[$0] } }
    }

    /// Deletes channel `id` of `bundleID`; false when there is no such channel.
    @discardableResult
    func delete(_ id: String, bundleID: String) -> Bool {
        state.withLock { state in
            guard state.channels[id]?.bundleID == bundleID else { return false }
            state.channels[id] = nil
            state.byBundle[bundleID]?.removeAll { $0 == id }
            return true
        }
    }

    /// Whether `bundleID` has the broadcast capability (every app has it until it is turned off).
    func isEnabled(bundleID: String) -> Bool {
        state.withLock { !$0.disabled.contains(bundleID) }
    }

    /// Turns the capability on or off; off deletes every channel of the app (as Apple does).
    func setEnabled(_ enabled: Bool, bundleID: String) {
        state.withLock { state in
            if enabled {
                state.disabled.remove(bundleID)
                return
            }
            state.disabled.insert(bundleID)
            for id in state.byBundle.removeValue(forKey: bundleID) ?? [] { state.channels[id] = nil }
        }
    }

    /// How many random bytes a new channel id encodes (16 unless changed; at least 1).
    var idByteCount: Int {
        get { state.withLock { $0.idBytes } }
        set { state.withLock { $0.idBytes = max(1, newValue) } }
    }

    /// The most channels one app may have (Apple: 10,000 per environment).
    var limit: Int {
        get { state.withLock { $0.limit } }
        set { state.withLock { $0.limit = max(0, newValue) } }
    }

    /// Keeps a record of one management request.
    func log(_ record: MockAPNSChannelRequestRecord) {
        state.withLock { $0.requests.append(record) }
    }

    /// The management requests answered so far, oldest first.
    var requests: [MockAPNSChannelRequestRecord] {
        state.withLock { $0.requests }
    }

    /// Forgets every channel, capability change and management record; the limit stays.
    func clear() {
        state.withLock { state in
            state.channels.removeAll()
            state.byBundle.removeAll()
            state.disabled.removeAll()
            state.requests.removeAll()
        }
    }
}

/// One channel of a mock server.
public struct MockAPNSChannel: Sendable, Hashable {
    /// The id the mock made up (base64 of `channelIDByteCount` random bytes).
    public let id: APNSChannelID
    /// The app it belongs to.
    public let bundleID: String
    /// Its message storage policy.
    public let storagePolicy: APNSMessageStoragePolicy
    /// Its push type, as the create request spelled it.
    public let pushType: String
    /// When it was created.
    public let created: Date
}

/// One channel management request the mock answered.
public struct MockAPNSChannelRequestRecord: Sendable, Hashable {
    /// `:method`.
    public let method: String
    /// `:path`.
    public let path: String
    /// The `apns-channel-id` request header, or for a create the id of the new channel.
    public let channelID: String?
    /// The `apns-request-id` answered (the one sent, or one made up).
    public let requestID: String
    /// The status answered.
    public let status: Int
    /// The reason answered, when the request was refused.
    public let reason: APNSRejectionReason?
    /// The management connection it came on (1, 2, …).
    public let connectionID: Int
    /// The SHA-256 fingerprint (colon-separated hex) of the client certificate the connection presented; nil without one
    /// (token authentication).
    public let clientCertificateFingerprint: String?
}
