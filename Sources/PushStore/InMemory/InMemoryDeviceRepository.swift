public import APNSCore
public import Foundation

/// `DeviceRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryDeviceRepository: DeviceRepository {
    private var devices: [TokenTopicKey: DeviceRecord] = [:]
    /// The keys of each user's devices, so a user's devices are found without a scan of all of them.
    private var byUser: [String: Set<TokenTopicKey>] = [:]
    private let webhooks: InMemoryWebhookRepository?

    /// An empty repository; invalidations are reported to `webhooks`.
    public init(webhooks: InMemoryWebhookRepository? = nil) {
        self.webhooks = webhooks
    }

    /// See `DeviceRepository.register`.
    public func register(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
        now: Date
    ) throws -> DeviceRecord {
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment.name)
        let now = now.storeNormalized
        let record = DeviceRecord(
            token: token, topic: topic, userID: userID, environment: environment,
            registeredAt: now, lastSeen: now)
        let key = TokenTopicKey(token: token, topic: topic)
        if let previous = devices.updateValue(record, forKey: key), previous.userID != userID { unindex(key, of: previous.userID) }
        byUser[userID, default: []].insert(key)
        return record
    }

    /// See `DeviceRepository.remove(token:)`.
    public func remove(token: DeviceToken) -> Int {
        let keys = devices.keys.filter { $0.token == token }
        for key in keys {
            if let removed = devices.removeValue(forKey: key) { unindex(key, of: removed.userID) }
        }
        return keys.count
    }

    private func unindex(_ key: TokenTopicKey, of userID: String) {
        byUser[userID]?.remove(key)
        if byUser[userID]?.isEmpty == true { byUser[userID] = nil }
    }

    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    public func devices(forUser userID: String, includeInvalidated: Bool) -> [DeviceRecord] {
        (byUser[userID] ?? []).compactMap { devices[$0] }
            .filter { includeInvalidated || $0.isActive }
            .sorted { ($0.registeredAt, $0.token.hex, $0.topic) < ($1.registeredAt, $1.token.hex, $1.topic) }
    }

    /// See `DeviceRepository.devices(forUsers:includeInvalidated:)`.
    public func devices(forUsers userIDs: [String], includeInvalidated: Bool) -> [String: [DeviceRecord]] {
        var found: [String: [DeviceRecord]] = [:]
        for user in userIDs { found[user] = devices(forUser: user, includeInvalidated: includeInvalidated) }
        return found
    }

    /// See `DeviceRepository.device(token:topic:)`.
    public func device(token: DeviceToken, topic: String) -> DeviceRecord? {
        devices[TokenTopicKey(token: token, topic: topic)]
    }

    /// See `DeviceRepository.devices(tokens:topic:)`.
    public func devices(tokens: [DeviceToken], topic: String) -> [DeviceToken: DeviceRecord] {
        var found: [DeviceToken: DeviceRecord] = [:]
        for token in tokens { found[token] = devices[TokenTopicKey(token: token, topic: topic)] }
        return found
    }

    /// See `DeviceRepository.invalidate`.
    public func invalidate(token: DeviceToken, topic: String, reason: APNSRejectionReason, at timestamp: Date) -> Bool {
        let key = TokenTopicKey(token: token, topic: topic)
        guard var device = devices[key], device.isActive,
            DeviceInvalidationRule.invalidates(
                reason: reason, timestamp: timestamp,
                registeredAt: device.registeredAt)
        else { return false }
        device.invalidatedAt = timestamp.storeNormalized
        device.invalidReason = reason
        devices[key] = device
        if let webhooks, webhooks.wants(.deviceInvalidated) {
            webhooks.record([WebhookEvents.deviceInvalidated(device, reason: reason, timestamp: timestamp)])
        }
        return true
    }
}
