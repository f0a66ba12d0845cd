public import APNSCore
public import Foundation

/// Device-token registrations and Apple's invalidation rules.
public protocol DeviceRepository: Sendable {
    /// Registers or re-registers `token` for `topic` (reviving it if invalidated).
    func register(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
        now: Date
    ) async throws -> DeviceRecord
    /// Deletes every registration of `token`; returns how many.
    func remove(token: DeviceToken) async throws -> Int
    /// The user's devices, oldest registration first; invalidated ones only if `includeInvalidated`.
    func devices(forUser userID: String, includeInvalidated: Bool) async throws -> [DeviceRecord]
    /// `devices(forUser:includeInvalidated:)` of each of `userIDs`, in one read; every user is a key.
    func devices(forUsers userIDs: [String], includeInvalidated: Bool) async throws -> [String: [DeviceRecord]]
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

    /// One `devices(forUser:includeInvalidated:)` per user, for a store without a read of its own.
    public func devices(forUsers userIDs: [String], includeInvalidated: Bool) async throws -> [String: [DeviceRecord]] {
        var found: [String: [DeviceRecord]] = [:]
        for user in Set(userIDs) { found[user] = try await devices(forUser: user, includeInvalidated: includeInvalidated) }
        return found
    }
}
