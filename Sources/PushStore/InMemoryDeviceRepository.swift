import Foundation

/// `DeviceRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryDeviceRepository: DeviceRepository {
    private struct Key: Hashable {
        var token: String
        var topic: String
    }

    private var devices: [Key: DeviceRecord] = [:]

    /// An empty repository.
    public init() {}

    /// See `DeviceRepository.register`.
    public func register(token: String, topic: String, userID: String, environment: String,
                         now: Date) throws -> DeviceRecord {
        try StoreValidation.token(token)
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment)
        let now = now.storeNormalized
        let record = DeviceRecord(token: token, topic: topic, userID: userID, environment: environment,
                                  registeredAt: now, lastSeen: now)
        devices[Key(token: token, topic: topic)] = record
        return record
    }

    /// See `DeviceRepository.remove(token:)`.
    public func remove(token: String) -> Int {
        let keys = devices.keys.filter { $0.token == token }
        for key in keys { devices[key] = nil }
        return keys.count
    }

    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    public func devices(forUser userID: String, includeInvalidated: Bool) -> [DeviceRecord] {
        devices.values
            .filter { $0.userID == userID && (includeInvalidated || $0.isActive) }
            .sorted { ($0.registeredAt, $0.token, $0.topic) < ($1.registeredAt, $1.token, $1.topic) }
    }

    /// See `DeviceRepository.device(token:topic:)`.
    public func device(token: String, topic: String) -> DeviceRecord? {
        devices[Key(token: token, topic: topic)]
    }

    /// See `DeviceRepository.invalidate`.
    public func invalidate(token: String, topic: String, reason: String, at timestamp: Date) -> Bool {
        let key = Key(token: token, topic: topic)
        guard var device = devices[key], device.isActive,
              DeviceInvalidationRule.invalidates(reason: reason, timestamp: timestamp,
                                                 registeredAt: device.registeredAt) else { return false }
        device.invalidatedAt = timestamp.storeNormalized
        device.invalidReason = reason
        devices[key] = device
        return true
    }
}
