import APNSCore
import Foundation

/// Device-token registrations and Apple's invalidation rules.
public protocol DeviceRepository: Sendable {
    /// Registers or re-registers `token` for `topic` (reviving it if invalidated).
    func register(token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
                  now: Date) async throws -> DeviceRecord
    /// Deletes every registration of `token`; returns how many.
    func remove(token: DeviceToken) async throws -> Int
    /// The user's devices, oldest registration first; invalidated ones only if `includeInvalidated`.
    func devices(forUser userID: String, includeInvalidated: Bool) async throws -> [DeviceRecord]
    /// The registration of `token` for `topic`.
    func device(token: DeviceToken, topic: String) async throws -> DeviceRecord?
    /// The registrations of many tokens for `topic`, in one lookup (tokens without one are absent).
    func devices(tokens: [DeviceToken], topic: String) async throws -> [DeviceToken: DeviceRecord]
    /// Applies `DeviceInvalidationRule`; returns true if this call invalidated the registration.
    func invalidate(token: DeviceToken, topic: String, reason: APNSRejectionReason, at timestamp: Date) async throws -> Bool
}

extension DeviceRepository {
    /// The user's active devices.
    public func devices(forUser userID: String) async throws -> [DeviceRecord] {
        try await devices(forUser: userID, includeInvalidated: false)
    }
}

/// `DeviceRepository` over a `PushStore`.
public struct SQLiteDeviceRepository: DeviceRepository {
    /// The store every call goes to.
    public let store: PushStore
    /// Wraps `store`.
    public init(store: PushStore) { self.store = store }
    /// See `DeviceRepository.register`.
    public func register(token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
                         now: Date) async throws -> DeviceRecord {
        try await store.registerDevice(token: token, topic: topic, userID: userID, environment: environment, now: now)
    }
    /// See `DeviceRepository.remove(token:)`.
    public func remove(token: DeviceToken) async throws -> Int { try await store.removeDevice(token: token) }
    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    public func devices(forUser userID: String, includeInvalidated: Bool) async throws -> [DeviceRecord] {
        try await store.devices(forUser: userID, includeInvalidated: includeInvalidated)
    }
    /// See `DeviceRepository.device(token:topic:)`.
    public func device(token: DeviceToken, topic: String) async throws -> DeviceRecord? {
        try await store.device(token: token, topic: topic)
    }
    /// See `DeviceRepository.devices(tokens:topic:)`.
    public func devices(tokens: [DeviceToken], topic: String) async throws -> [DeviceToken: DeviceRecord] {
        try await store.devices(tokens: tokens, topic: topic)
    }
    /// See `DeviceRepository.invalidate`.
    public func invalidate(token: DeviceToken, topic: String, reason: APNSRejectionReason, at timestamp: Date) async throws -> Bool {
        try await store.invalidateDevice(token: token, topic: topic, reason: reason, at: timestamp)
    }
}
