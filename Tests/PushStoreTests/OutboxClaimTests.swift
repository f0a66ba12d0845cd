import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("Outbox claim details (both twins)")
struct OutboxClaimTests {
    /// Claimed rows come back exactly as enqueued (plus the claim's changes), also when neighbouring rows
    /// share or differ in push id, topic and payload.
    @Test(arguments: StoreKind.allCases)
    func claimedItemsMatchWhatWasEnqueued(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        var items: [OutboxItem] = []
        for n in 0..<40 {
            var item = outboxItem("c\(n)", push: n % 7 < 4 ? "fan" : "solo-\(n)", token: n, now: at(Double(n) / 1_000))
            if n % 5 == 0 { item.topic = "com.example.other" }
            if n % 3 == 0 { item.payload = Array(#"{"aps":{"alert":"row \#(n)"}}"#.utf8) }
            if n % 4 == 0 { item.payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8) + [UInt8(ascii: " ")] }
            items.append(item)
        }
        try await outbox.enqueue(items)
        let claimed = try await outbox.claim(limit: 100, now: at(1))
        var expected = items
        for index in expected.indices {
            expected[index].state = .inFlight
            expected[index].attempts = 1
            expected[index].updatedAt = at(1)
        }
        #expect(claimed.items == expected)
    }

    /// An outcome is fenced by the claim it was sent under: once the row has been claimed again (here after
    /// `recoverInFlight`, as after a restart; on a shared database, after another instance took over an
    /// expired lease), the first claim's late answer changes nothing, whichever outcome it carries.
    @Test(arguments: StoreKind.allCases)
    func staleOutcomesAreFencedOff(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        try await outbox.enqueue([outboxItem("a"), outboxItem("b")])
        let first = try await outbox.claim(limit: 2, now: t0)
        #expect(first.map(\.attempts) == [1, 1])
        #expect(try await outbox.recoverInFlight() == 2)
        let second = try await outbox.claim(limit: 2, now: at(1))
        #expect(second.map(\.attempts) == [2, 2])
        let late = try await outbox.complete(
            [
                OutboxCompletion(first[0], .accepted(apnsUniqueID: nil)),
                OutboxCompletion(first[1], .retry(status: 503, reason: "ServiceUnavailable")),
            ],
            now: at(2))
        #expect(late.isEmpty)
        #expect(try await outbox.item(id: "a")?.state == .inFlight)
        #expect(try await outbox.item(id: "b")?.state == .inFlight)
        let current = try await outbox.complete(second.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(3))
        #expect(current == ["a": .accepted, "b": .accepted])
    }
}
