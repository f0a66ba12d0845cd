import APNSCore
import Foundation
import Testing

@testable import PushStore

/// An outbox row's typed fields (target, expiration, apns-id, last reason) come back from every store as
/// they went in: the SQL stores map them to their columns and back, nothing else.
@Suite("Outbox rows keep their types")
struct OutboxTypedRowTests {
    static let channel = APNSChannelID("dHlwZWQtY2hhbm5lbA==")
    static let id = APNSID(rawValue: "0a1b2c3d-0000-4000-8000-00000000000b")

    @Test(arguments: StoreKind.allCases)
    func targetsExpirationsAndIDsRoundTrip(kind: StoreKind) async throws {
        let repos = try await kind.make()
        var device = outboxItem("dev", token: 3)
        device.expiration = .at(epochSeconds: 1_900_000_000)
        device.apnsID = Self.id
        let once = outboxItem("once", token: 4, expiration: 0)
        let broadcast = OutboxItem.broadcast(
            id: "chan", pushID: "p", channelID: Self.channel, bundleID: topic, payload: Array(#"{"aps":{}}"#.utf8),
            environment: .development, priority: .immediately, expiration: .none, now: t0)
        try await repos.outbox.enqueue([device, once, broadcast, outboxItem("bare", token: 5)])

        let dev = try #require(try await repos.outbox.item(id: "dev"))
        #expect(dev.target == .device(token(3)) && dev.target.channelID == nil)
        #expect(dev.expiration == .at(epochSeconds: 1_900_000_000) && dev.apnsID == Self.id)
        #expect(dev.notification.expiration.headerValue == "1900000000" && dev.notification.apnsID == Self.id?.rawValue)
        #expect(try await repos.outbox.item(id: "once")?.expiration == .immediately)
        let bare = try #require(try await repos.outbox.item(id: "bare"))
        #expect(bare.expiration == .none && bare.apnsID == nil && bare.lastReason == nil)
        let chan = try #require(try await repos.outbox.item(id: "chan"))
        #expect(chan.target == .channel(Self.channel) && chan.target.deviceToken == nil)
        // A broadcast always carries an expiration: none stored is sent as 0.
        #expect(chan.expiration == .none && chan.broadcast?.expiration == .immediately)
    }

    @Test(arguments: StoreKind.allCases)
    func lastReasonsAreTyped(kind: StoreKind) async throws {
        let repos = try await kind.make()
        try await repos.outbox.enqueue([
            outboxItem("gone", token: 1), outboxItem("lost", token: 2), outboxItem("late", token: 3, expiration: 1),
            outboxItem("odd", token: 4),
        ])
        let claim = try await repos.outbox.claim(limit: 10, now: at(1))
        #expect(claim.expired == ["late"])
        try await repos.outbox.complete(
            [
                done("gone", .rejected(APNSRejection(.unregistered, timestamp: at(0)))),
                done("lost", .failed(APNSTransportError(.outcomeUnknown, "reset"))),
                done("odd", .rejected(APNSRejection(status: 400, reason: .unknown("SomethingNew")))),
            ], now: at(2))
        // Reasons compare by their text, as APNs' reasons do: the case is checked by `kind`.
        #expect(Self.kind(try await repos.outbox.item(id: "gone")?.lastReason) == "rejected Unregistered")
        #expect(Self.kind(try await repos.outbox.item(id: "lost")?.lastReason) == "transport error")
        #expect(Self.kind(try await repos.outbox.item(id: "late")?.lastReason) == "expired")
        #expect(Self.kind(try await repos.outbox.item(id: "odd")?.lastReason) == "rejected SomethingNew")
    }

    @Test("the column text of each reason reads back as the same reason")
    func reasonText() {
        let reasons: [OutboxReason] = [.transportError, .expired, .rejected(.badDeviceToken), .rejected(.unknown("New"))]
        for reason in reasons { #expect(Self.kind(OutboxReason(rawValue: reason.rawValue)) == Self.kind(reason)) }
        #expect(OutboxReason.transportError.rawValue == "TransportError" && OutboxReason.expired.rawValue == "Expired")
        #expect(OutboxReason(rawValue: "ServiceUnavailable").rejectionReason == .serviceUnavailable)
    }

    /// The case of `reason`, with APNs' reason for a rejection.
    static func kind(_ reason: OutboxReason?) -> String {
        switch reason {
        case .rejected(let reason): "rejected \(reason.rawValue)"
        case .transportError: "transport error"
        case .expired: "expired"
        case nil: "none"
        }
    }
}
