public import APNSCore
public import Foundation

/// `DeviceRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryDeviceRepository: DeviceRepository {
    private struct Key: Hashable {
        var token: DeviceToken
        var topic: String
    }

    private var devices: [Key: DeviceRecord] = [:]
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
        devices[Key(token: token, topic: topic)] = record
        return record
    }

    /// See `DeviceRepository.remove(token:)`.
    public func remove(token: DeviceToken) -> Int {
        let keys = devices.keys.filter { $0.token == token }
        for key in keys { devices[key] = nil }
        return keys.count
    }

    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    public func devices(forUser userID: String, includeInvalidated: Bool) -> [DeviceRecord] {
        devices.values
            .filter { $0.userID == userID && (includeInvalidated || $0.isActive) }
            .sorted { ($0.registeredAt, $0.token.hex, $0.topic) < ($1.registeredAt, $1.token.hex, $1.topic) }
    }

    /// See `DeviceRepository.device(token:topic:)`.
    public func device(token: DeviceToken, topic: String) -> DeviceRecord? {
        devices[Key(token: token, topic: topic)]
    }

    /// See `DeviceRepository.devices(tokens:topic:)`.
    public func devices(tokens: [DeviceToken], topic: String) -> [DeviceToken: DeviceRecord] {
        var found: [DeviceToken: DeviceRecord] = [:]
        for token in tokens { found[token] = devices[Key(token: token, topic: topic)] }
        return found
    }

    /// See `DeviceRepository.invalidate`.
    public func invalidate(token: DeviceToken, topic: String, reason: APNSRejectionReason, at timestamp: Date) -> Bool {
        let key = Key(token: token, topic: topic)
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
