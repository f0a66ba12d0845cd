import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("ChannelRepository and channel outbox rows (every store)")
struct ChannelRepositoryTests {
    private let first = APNSChannelID("dHdpbmNoYW5uZWwtb25l")
    private let second = APNSChannelID("c2Vjb25kLWNoYW5uZWw=")

    @Test(arguments: StoreKind.allCases)
    func channelsAreKeptPerTopicAndEnvironment(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let a = ChannelRecord(id: first, topic: topic, environment: .development, storagePolicy: .mostRecentMessageStored, createdAt: at(1))
        let b = ChannelRecord(id: second, topic: topic, environment: .development, storagePolicy: .noMessageStored, createdAt: at(2))
        let elsewhere = ChannelRecord(
            id: first, topic: "com.example.other", environment: .production, storagePolicy: .noMessageStored, createdAt: at(0))
        try await repos.channels.add(b)
        try await repos.channels.add(a)
        try await repos.channels.add(elsewhere)
        #expect(try await repos.channels.channels(topic: topic, environment: .development) == [a, b])
        #expect(try await repos.channels.channels(topic: topic, environment: .production) == [])
        #expect(try await repos.channels.channels(topic: "com.example.other", environment: nil) == [elsewhere])
        #expect(try await repos.channels.channel(id: first, environment: .development) == a)
        #expect(try await repos.channels.channel(id: first, environment: .production) == elsewhere)
        #expect(try await repos.channels.remove(id: first, environment: .development))
        #expect(try await repos.channels.remove(id: first, environment: .development) == false)
        #expect(try await repos.channels.channel(id: first, environment: .development) == nil)
        #expect(try await repos.channels.channels(topic: topic, environment: nil) == [b])
    }

    @Test(arguments: StoreKind.allCases)
    func malformedChannelIDIsRefused(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let bad = ChannelRecord(
            id: APNSChannelID("not base64!"), topic: topic, environment: .production, storagePolicy: .noMessageStored, createdAt: t0)
        await #expect(throws: PushStoreError.self) { try await repos.channels.add(bad) }
        let row = OutboxItem.broadcast(
            id: "b-bad", pushID: "p", channelID: APNSChannelID("???"), bundleID: topic, payload: Array("{}".utf8),
            environment: .production, priority: .immediately, expiration: .immediately, now: t0)
        await #expect(throws: PushStoreError.self) { try await repos.outbox.enqueue([row]) }
    }

    @Test(arguments: StoreKind.allCases)
    func channelRowsRoundTripThroughClaimAndComplete(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let row = OutboxItem.broadcast(
            id: "b-1", pushID: "bp-1", channelID: first, bundleID: topic, payload: Array(#"{"aps":{}}"#.utf8),
            environment: .development, priority: .immediately, expiration: .at(epochSeconds: 1_800_000_000), now: t0)
        try await repos.outbox.enqueue([row, outboxItem("d-1")])
        let stored = try #require(try await repos.outbox.item(id: "b-1"))
        #expect(stored.target == .channel(first))
        #expect(stored.broadcast?.channelID == first && stored.broadcast?.bundleID == topic)
        #expect(try await repos.outbox.item(id: "d-1")?.target == .device(token(1)))
        let claim = try await repos.outbox.claim(limit: 10, now: at(1))
        #expect(claim.items.map(\.id).sorted() == ["b-1", "d-1"])
        #expect(claim.items.first { $0.id == "b-1" }?.target == .channel(first))
        let broadcast = try #require(claim.items.first { $0.id == "b-1" })
        let states = try await repos.outbox.complete(
            [OutboxCompletion(id: "b-1", attempt: broadcast.attempts, result: .accepted(apnsUniqueID: nil))], now: at(2))
        #expect(states["b-1"] == .accepted)
    }
}
