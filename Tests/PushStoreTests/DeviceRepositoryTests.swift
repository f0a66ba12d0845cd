import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("DeviceRepository (both twins)")
struct DeviceRepositoryTests {
    @Test(arguments: StoreKind.allCases)
    func registerListAndRemove(kind: StoreKind) async throws {
        let devices = try await kind.make().devices
        let a = try await devices.register(token: token(1), topic: topic, userID: "ana", environment: "production", now: at(0))
        #expect(a.isActive && a.registeredAt == t0 && a.lastSeen == t0)
        _ = try await devices.register(token: token(2), topic: topic, userID: "ana", environment: "development", now: at(1))
        _ = try await devices.register(token: token(2), topic: topic + ".voip", userID: "ana", environment: "development", now: at(2))
        _ = try await devices.register(token: token(3), topic: topic, userID: "bob", environment: "production", now: at(3))
        #expect(try await devices.devices(forUser: "ana").map(\.token) == [token(1), token(2), token(2)])
        #expect(try await devices.device(token: token(2), topic: topic + ".voip")?.environment == "development")
        #expect(try await devices.remove(token: token(2)) == 2)
        #expect(try await devices.remove(token: token(2)) == 0)
        #expect(try await devices.devices(forUser: "ana").map(\.token) == [token(1)])
        #expect(try await devices.device(token: token(2), topic: topic) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func devicesOfSeveralUsersInOneRead(kind: StoreKind) async throws {
        let devices = try await kind.make().devices
        _ = try await devices.register(token: token(1), topic: topic, userID: "ana", environment: "production", now: at(0))
        _ = try await devices.register(token: token(2), topic: topic, userID: "bob", environment: "production", now: at(1))
        _ = try await devices.register(token: token(3), topic: topic, userID: "ana", environment: "production", now: at(2))
        _ = try await devices.register(token: token(4), topic: topic, userID: "bob", environment: "production", now: at(3))
        #expect(try await devices.invalidate(token: token(4), topic: topic, reason: "Unregistered", at: at(10)))
        let active = try await devices.devices(forUsers: ["ana", "bob", "cy", "ana"], includeInvalidated: false)
        // Every user asked for is a key, each list in the order of `devices(forUser:)`.
        #expect(active.mapValues { $0.map(\.token) } == ["ana": [token(1), token(3)], "bob": [token(2)], "cy": []])
        let all = try await devices.devices(forUsers: ["bob"], includeInvalidated: true)
        #expect(all.mapValues { $0.map(\.token) } == ["bob": [token(2), token(4)]])
        #expect(try await devices.devices(forUsers: [], includeInvalidated: false).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func reRegisteringRevivesAndMovesTheToken(kind: StoreKind) async throws {
        let devices = try await kind.make().devices
        _ = try await devices.register(token: token(1), topic: topic, userID: "ana", environment: "development", now: at(0))
        #expect(try await devices.invalidate(token: token(1), topic: topic, reason: "BadDeviceToken", at: at(10)))
        let dead = try #require(try await devices.device(token: token(1), topic: topic))
        #expect(!dead.isActive && dead.invalidatedAt == at(10) && dead.invalidReason == "BadDeviceToken")
        #expect(try await devices.devices(forUser: "ana").isEmpty)
        #expect(try await devices.devices(forUser: "ana", includeInvalidated: true).count == 1)

        let revived = try await devices.register(token: token(1), topic: topic, userID: "bob", environment: "production", now: at(20))
        #expect(revived.isActive && revived.invalidReason == nil)
        #expect(revived.userID == "bob" && revived.environment == "production" && revived.registeredAt == at(20))
        #expect(try await devices.devices(forUser: "ana", includeInvalidated: true).isEmpty)
        #expect(try await devices.devices(forUser: "bob").map(\.token) == [token(1)])
    }

    @Test(arguments: StoreKind.allCases)
    func unregisteredInvalidatesATokenRegisteredBeforeTheTimestamp(kind: StoreKind) async throws {
        let devices = try await kind.make().devices
        _ = try await devices.register(token: token(1), topic: topic, userID: "ana", environment: "production", now: at(0))
        #expect(try await devices.invalidate(token: token(1), topic: topic, reason: "Unregistered", at: at(100)))
        #expect(try await devices.devices(forUser: "ana").isEmpty)
        // Second report: already invalid, nothing changes.
        #expect(try await devices.invalidate(token: token(1), topic: topic, reason: "Unregistered", at: at(200)) == false)
        #expect(try await devices.device(token: token(1), topic: topic)?.invalidatedAt == at(100))
    }

    @Test(arguments: StoreKind.allCases)
    func unregisteredKeepsATokenRegisteredAgainAfterTheTimestamp(kind: StoreKind) async throws {
        let devices = try await kind.make().devices
        _ = try await devices.register(token: token(1), topic: topic, userID: "ana", environment: "production", now: at(0))
        _ = try await devices.register(token: token(1), topic: topic, userID: "ana", environment: "production", now: at(150))
        #expect(try await devices.invalidate(token: token(1), topic: topic, reason: "Unregistered", at: at(100)) == false)
        #expect(try await devices.devices(forUser: "ana").map(\.token) == [token(1)])
        // Registered exactly at T counts as "not registered again after T".
        #expect(try await devices.invalidate(token: token(1), topic: topic, reason: "Unregistered", at: at(150)))
    }

    @Test(arguments: StoreKind.allCases)
    func immediateReasonsIgnoreRegistrationTime(kind: StoreKind) async throws {
        let devices = try await kind.make().devices
        for (n, reason) in [APNSRejectionReason.badDeviceToken, .deviceTokenNotForTopic, .expiredToken].enumerated() {
            _ = try await devices.register(token: token(n), topic: topic, userID: "ana", environment: "production", now: at(500))
            #expect(try await devices.invalidate(token: token(n), topic: topic, reason: reason, at: at(1)))
        }
        #expect(try await devices.devices(forUser: "ana").isEmpty)
        _ = try await devices.register(token: token(9), topic: topic, userID: "ana", environment: "production", now: at(0))
        for reason in [APNSRejectionReason.tooManyRequests, .payloadTooLarge, APNSRejectionReason(rawValue: "SomethingNew")] {
            #expect(try await devices.invalidate(token: token(9), topic: topic, reason: reason, at: at(1)) == false)
        }
        #expect(try await devices.invalidate(token: token(42), topic: topic, reason: "BadDeviceToken", at: at(1)) == false)
        #expect(try await devices.devices(forUser: "ana").count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func onlyApplesTwoEnvironmentsAreStored(kind: StoreKind) async throws {
        // Malformed tokens cannot reach the store: `DeviceToken` refuses them (see DeviceTokenTests).
        let repos = try await kind.make()
        await #expect(
            throws: PushStoreError.invalidField(
                field: "environment",
                reason: "must be production or development, got \"custom\"")
        ) {
            _ = try await repos.devices.register(
                token: token(1), topic: topic, userID: "ana",
                environment: .custom(host: "127.0.0.1", port: 2197), now: t0)
        }
        #expect(try await repos.devices.devices(forUser: "ana", includeInvalidated: true).isEmpty)
        if let rows = try await repos.rowCount("devices") { #expect(rows == 0) }
        // The longest valid token is fine.
        _ = try await repos.devices.register(
            token: DeviceToken(stringLiteral: String(repeating: "ab", count: 100)), topic: topic,
            userID: "ana", environment: "production", now: t0)
    }

    @Test(arguments: StoreKind.allCases)
    func sqlInjectionTextIsStoredAsData(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let evil = "'); DROP TABLE devices;--"
        _ = try await repos.devices.register(token: token(1), topic: evil, userID: "ana", environment: "production", now: t0)
        #expect(try await repos.devices.device(token: token(1), topic: evil)?.topic == evil)
        var evilCard = card()
        evilCard.bio = evil
        evilCard.name = evil
        _ = try await repos.users.put(id: "ana", card: evilCard, now: t0)
        #expect(try await repos.users.user(id: "ana")?.card.bio == evil)
        try await repos.outbox.enqueue([
            OutboxItem(
                id: evil, pushID: evil, token: token(1), topic: evil, pushType: "alert",
                payload: Array(evil.utf8), environment: "production", now: t0)
        ])
        let item = try #require(try await repos.outbox.item(id: evil))
        #expect(item.topic == evil && item.payload == Array(evil.utf8))
        #expect(try await repos.devices.devices(forUser: "ana").count == 1)
        if let store = repos.store {
            #expect(try await store.rowCount("devices") == 1)
            #expect(try await store.integrityCheck() == "ok")
        }
    }
}
