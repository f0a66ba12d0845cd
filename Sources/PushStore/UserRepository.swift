public import Foundation

/// Users and their profile cards, stored encoded (the profile-drop domain encodes and checks them).
public protocol UserRepository: Sendable {
    /// Creates the user or replaces their card (keeping `createdAt`); validates the id first.
    func put(id: String, cardJSON: String, now: Date) async throws -> UserRecord
    /// The user with `id`, or nil.
    func user(id: String) async throws -> UserRecord?
    /// The users among `ids` that exist, by id, in one read (a profile drop reads both of its users).
    func users(ids: [String]) async throws -> [String: UserRecord]
    /// The users among `ids` that exist, by id, and the devices `devices` holds for each of them (active
    /// ones only unless `includeInvalidated`, as `DeviceRepository.devices(forUsers:includeInvalidated:)`
    /// orders them; every user found is a key): in one read where one store holds both (a profile-drop
    /// report reads both users' cards and the devices their mate requests go to).
    func users(
        ids: [String], withDevicesIn devices: any DeviceRepository, includeInvalidated: Bool
    ) async throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]])
}

extension UserRepository {
    /// One `user(id:)` per id, for a store without a read of its own.
    public func users(ids: [String]) async throws -> [String: UserRecord] {
        var found: [String: UserRecord] = [:]
        for id in Set(ids) { found[id] = try await user(id: id) }
        return found
    }

    /// `users(ids:)`, then the devices of those found.
    public func users(
        ids: [String], withDevicesIn devices: any DeviceRepository, includeInvalidated: Bool
    ) async throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]]) {
        let found = try await users(ids: ids)
        guard !found.isEmpty else { return (found, [:]) }
        return (found, try await devices.devices(forUsers: Array(found.keys), includeInvalidated: includeInvalidated))
    }
}
