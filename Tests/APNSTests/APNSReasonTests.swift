import APNS
import APNSCore
import APNSMock
import Foundation
import Testing

/// One request that deserves one rejection, sent by the real client (local validation off) to the mock.
struct ReasonCase: Sendable, CustomTestStringConvertible {
    let reason: APNSRejectionReason
    let status: Int
    let notification: @Sendable () -> APNSNotification
    var prepare: @Sendable (MockAPNSServer) -> Void = { _ in }
    var testDescription: String { reason.rawValue }
}

let unregisteredAt = Date(timeIntervalSince1970: 1_700_000_000.123)

let reasonCases: [ReasonCase] = [
    ReasonCase(reason: .badTopic, status: 400) { alert(topic: "com.someone.else") },
    ReasonCase(reason: .topicDisallowed, status: 400) { alert(topic: bundleID + ".complication") },
    ReasonCase(reason: .payloadTooLarge, status: 413) {
        APNSNotification(
            token: tokenA, topic: bundleID,
            payload: Array(#"{"aps":{"alert":""#.utf8) + [UInt8](repeating: 97, count: 4080) + Array(#""}}"#.utf8))
    },
    ReasonCase(reason: .payloadEmpty, status: 400) { APNSNotification(token: tokenA, topic: bundleID, payload: [UInt8]()) },
    ReasonCase(reason: .badPriority, status: 400) {
        APNSNotification(
            token: tokenA, topic: bundleID, pushType: .background, priority: .immediately,
            payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
    },
    ReasonCase(reason: .badCollapseId, status: 400) {
        APNSNotification(token: tokenA, topic: bundleID, collapseID: String(repeating: "c", count: 65), payload: .alert("x"))
    },
    ReasonCase(reason: .badMessageId, status: 400) {
        APNSNotification(token: tokenA, topic: bundleID, apnsID: "not-a-uuid", payload: .alert("x"))
    },
    ReasonCase(reason: .invalidPushType, status: 400) {
        APNSNotification(token: tokenA, topic: bundleID, pushType: .voip, payload: .alert("x"))
    },
    ReasonCase(
        reason: .unregistered, status: 410, notification: { alert(tokenB) },
        prepare: { $0.unregisterToken(tokenB, at: unregisteredAt) }),
    ReasonCase(reason: .expiredToken, status: 410, notification: { alert(tokenB) }, prepare: { $0.expireToken(tokenB) }),
    ReasonCase(
        reason: .deviceTokenNotForTopic, status: 400, notification: { alert(tokenB) },
        prepare: { $0.registerToken(tokenA, topic: bundleID) }),
]

/// Reasons no request can cause: produced with the handler shortcut.
let shortcutReasons: [APNSRejectionReason] = [.tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout]

@Suite("Every rejection reason through the real client")
struct APNSReasonTests {
    @Test("a request that deserves the reason gets it, with Apple's status", arguments: reasonCases)
    func provoked(_ reasonCase: ReasonCase) async throws {
        try await withClient(configureClient: { $0.validatesLocally = false }) { fixture in
            reasonCase.prepare(fixture.server)
            let outcome = try await fixture.client.send(reasonCase.notification())
            let rejection = try #require(outcome.rejection)
            #expect(rejection.reason == reasonCase.reason)
            #expect(rejection.status == reasonCase.status)
            #expect(rejection.apnsID?.isEmpty == false)
            if reasonCase.reason == .unregistered {
                #expect(rejection.timestamp.map { abs($0.timeIntervalSince(unregisteredAt)) < 0.001 } == true)
            } else {
                #expect(rejection.timestamp == nil)
            }
        }
    }

    @Test("a production-only certificate against a development server: BadCertificateEnvironment")
    func certificateEnvironment() async throws {
        try await withClient(environments: .production, serverEnvironment: .development) { fixture in
            let outcome = try await fixture.client.send(alert())
            #expect(outcome.rejection?.reason == .badCertificateEnvironment)
            #expect(outcome.rejection?.status == 403)
        }
    }

    @Test("reasons only APNs' own state causes, through the handler shortcut", arguments: shortcutReasons)
    func shortcut(_ reason: APNSRejectionReason) async throws {
        try await withClient(configureServer: { $0.handler = MockAPNSHandlers.rejectAll(reason) }) { fixture in
            let outcome = try await fixture.client.send(alert())
            #expect(outcome.rejection?.reason == reason)
            #expect(outcome.rejection?.status == reason.status)
        }
    }
}
