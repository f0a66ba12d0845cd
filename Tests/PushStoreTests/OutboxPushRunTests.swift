import APNSCore
import Foundation
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// A push's notifications are positions in it: derived ids, and the runs a store writes once.
@Suite("Outbox push runs")
struct OutboxPushRunTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private static func fanOut(_ count: Int, pushID: String = "p1", payload: [UInt8] = Array("{}".utf8)) -> [OutboxItem] {
        var random = BulkRandom()
        return OutboxID.makeDerived(count: count, at: now, using: &random).enumerated().map { index, id in
            OutboxItem(
                id: id.id, pushID: pushID, token: DeviceToken(storedHex: String(format: "%064x", index)), topic: "app",
                pushType: .alert, payload: payload, environment: .production, apnsID: id.apnsID, now: now)
        }
    }

    @Test("derived ids name their base and position, and only a base derives")
    func derivedIDs() throws {
        var random = BulkRandom()
        let ids = OutboxID.makeDerived(count: 3, at: Self.now, using: &random)
        let base = ids[0].id
        #expect(Set(ids.map(\.id)).count == 3)
        #expect(ids.map(\.apnsID.rawValue) == ids.map(\.id))
        #expect(ids.allSatisfy { APNSID.isValid($0.id) && $0.id.lowercased() == $0.id })
        for (index, id) in ids.enumerated() {
            let position = try #require(OutboxID.position(of: id.id))
            #expect(position.base == base && position.index == index)
            #expect(OutboxID.derived(from: base, index: index) == id.id)
        }
        #expect(OutboxID.position(of: base.uppercased())?.base == base)
        #expect(OutboxID.derived(from: ids[1].id, index: 1) == nil)  // not a base: its last bits are taken
        #expect(OutboxID.derived(from: base, index: -1) == nil)
        #expect(OutboxID.derived(from: base, index: OutboxID.derivedCapacity) == nil)
        #expect(OutboxID.position(of: "n1") == nil)
        // Ordinary ids are still version 7 ids of the push's millisecond.
        #expect(Array(base.utf8)[14] == UInt8(ascii: "7"))
        #expect(base.hasPrefix(OutboxID.make(at: Self.now, using: &random).prefix(8)))
    }

    @Test("a fan-out is one run; a changed field, an id out of place or an explicit apns-id starts another")
    func runs() throws {
        let items = Self.fanOut(5)
        #expect(OutboxPushRun.runs(items) == [OutboxPushRun(range: 0..<5, base: items[0].id, firstIndex: 0, apnsIDColumn: "")])

        var noAPNSIDs = items
        for index in noAPNSIDs.indices { noAPNSIDs[index].apnsID = nil }
        #expect(OutboxPushRun.runs(noAPNSIDs).map(\.apnsIDColumn) == [nil])

        var otherTopic = items
        otherTopic[3].topic = "other"
        otherTopic[4].topic = "other"
        // A push whose devices span apps: one run per app, the second continuing the positions.
        let split = OutboxPushRun.runs(otherTopic)
        #expect(split.map(\.range) == [0..<3, 3..<5])
        #expect(split.map(\.firstIndex) == [0, 3] && split.map(\.base) == [items[0].id, items[0].id])

        var swapped = items
        swapped.swapAt(1, 2)
        #expect(OutboxPushRun.runs(swapped).map(\.range) == [0..<1, 1..<2, 2..<3, 3..<5])
        #expect(OutboxPushRun.runs(swapped).map(\.firstIndex) == [0, 2, 1, 3])

        var explicit = items
        explicit[2].apnsID = APNSID.random()
        let runs = OutboxPushRun.runs(explicit)
        #expect(runs.map(\.range) == [0..<2, 2..<3, 3..<5])
        #expect(runs[1].apnsIDColumn == explicit[2].apnsID?.rawValue)

        var otherPayload = items
        otherPayload[1].payload = Array("{\"a\":1}".utf8)
        #expect(OutboxPushRun.runs(otherPayload).map(\.range) == [0..<1, 1..<2, 2..<5])
        // Equal bytes in another buffer still share the run.
        var copied = items
        copied[1].payload = Array("{}".utf8)
        #expect(OutboxPushRun.runs(copied).map(\.range) == [0..<5])

        // Any other ids: one run per item, stored as given.
        let plain = (0..<3).map { index in
            OutboxItem(
                id: "n\(index)", pushID: "p", token: DeviceToken(storedHex: "ab"), topic: "app", pushType: .alert,
                payload: Array("{}".utf8), environment: .production, now: Self.now)
        }
        #expect(OutboxPushRun.runs(plain).map(\.range) == [0..<1, 1..<2, 2..<3])
        #expect(OutboxPushRun.runs(plain).map(\.base) == ["n0", "n1", "n2"])
        // An uppercase UUID is its own base too, so it comes back exactly as given.
        #expect(OutboxPushRun.key(of: items[1].id.uppercased()) == (items[1].id.uppercased(), 0))
        #expect(OutboxPushRun.key(of: items[1].id) == (items[0].id, 1))
        #expect(OutboxPushRun.runs([]).isEmpty)
    }

    @Test("the target list column gives back every target in order")
    func targetList() {
        let items = Self.fanOut(4)
        let column = OutboxTargetList.column(items, 1..<4)
        #expect(OutboxTargetList.targets(column, channels: false, at: 0..<3) == items[1..<4].map(\.target))
        #expect(OutboxTargetList.targets(column, channels: false, at: 1..<3) == items[2..<4].map(\.target))
        let channel = OutboxItem.broadcast(
            pushID: "b", channelID: APNSChannelID(rawValue: "dHdvIGNoYW5uZWxz"), bundleID: "app",
            payload: Array("{}".utf8), environment: .production, priority: .immediately, expiration: .immediately,
            now: Self.now)
        #expect(OutboxTargetList.targets(OutboxTargetList.column([channel], 0..<1), channels: true, at: 0..<1) == [channel.target])
        #expect(OutboxTargetList.apnsID(column: "", id: items[2].id)?.rawValue == items[2].id)
        #expect(OutboxTargetList.apnsID(column: nil, id: items[2].id) == nil)
    }
}
