import APNSCore
import Foundation
import Testing

@Suite("APNSRejection")
struct APNSRejectionTests {
    @Test("parse without timestamp")
    func plain() {
        let rejection = APNSRejection.parse(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8), apnsID: "id")
        #expect(rejection == APNSRejection(status: 400, reason: .badDeviceToken, timestamp: nil, apnsID: "id"))
        #expect(rejection.reason.invalidatesToken)
    }

    @Test("parse a 410 with a millisecond timestamp, and write it back byte for byte")
    func withTimestamp() throws {
        let body = Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8)
        let rejection = APNSRejection.parse(status: 410, body: body, apnsID: nil)
        #expect(rejection.reason == .unregistered)
        let timestamp = try #require(rejection.timestamp)
        #expect(abs(timestamp.timeIntervalSince1970 - 1_700_000_000.123) < 0.0005)
        #expect(rejection.jsonBody() == body)
    }

    @Test("an unknown reason comes through verbatim")
    func unknown() {
        let rejection = APNSRejection.parse(status: 400, body: Array(#"{"reason":"BrandNewReason"}"#.utf8), apnsID: nil)
        #expect(rejection.reason == .unknown("BrandNewReason"))
        #expect(rejection.reason.status == nil)
        #expect(rejection.jsonBody() == Array(#"{"reason":"BrandNewReason"}"#.utf8))
    }

    @Test(
        "garbage or missing bodies give unknown(\"\")",
        arguments: [
            "", "not json", "{", #"{"reason":42}"#, "[]", #"{"timestamp":"x"}"#, "\u{0}\u{1}",
        ])
    func garbage(body: String) {
        let rejection = APNSRejection.parse(status: 500, body: Array(body.utf8), apnsID: nil)
        #expect(rejection.status == 500)
        #expect(rejection.reason == .unknown(""))
        #expect(rejection.timestamp == nil)
    }

    @Test("jsonBody omits the timestamp except on 410")
    func bodyShape() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(APNSRejection(.badTopic, timestamp: date).jsonBody() == Array(#"{"reason":"BadTopic"}"#.utf8))
        #expect(
            APNSRejection(.unregistered, timestamp: date).jsonBody()
                == Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8))
        #expect(APNSRejection(.unregistered).jsonBody() == Array(#"{"reason":"Unregistered"}"#.utf8))
    }
}

@Suite("APNSRejectionReason")
struct APNSRejectionReasonTests {
    static let statuses: [Int: [String]] = [
        400: [
            "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
            "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
            "MissingTopic", "PayloadEmpty", "TopicDisallowed",
            "FeatureNotEnabled", "MissingChannelId", "BadChannelId", "ChannelNotRegistered", "BadRequestParams",
            "BadRequestPayload", "MissingPushType", "CannotCreateChannelConfig",
        ],
        403: [
            "BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden",
            "InvalidProviderToken", "MissingProviderToken", "TopicMismatch",
        ],
        404: ["BadPath"], 405: ["MethodNotAllowed"], 410: ["ExpiredToken", "Unregistered"],
        413: ["PayloadTooLarge"], 429: ["TooManyProviderTokenUpdates", "TooManyRequests"],
        500: ["InternalServerError"], 503: ["ServiceUnavailable", "Shutdown"],
    ]

    @Test("every documented reason round-trips and carries Apple's status", arguments: APNSRejectionReason.allKnown)
    func roundTrip(reason: APNSRejectionReason) throws {
        let parsed = APNSRejectionReason(rawValue: reason.rawValue)
        #expect(parsed == reason)
        guard case .unknown = parsed else {
            let status = try #require(reason.status)
            #expect(Self.statuses[status]?.contains(reason.rawValue) == true)
            return
        }
        Issue.record("\(reason) parsed as unknown")
    }

    @Test("thirty-nine known reasons: thirty for device pushes, nine more for broadcast and channels")
    func count() {
        #expect(APNSRejectionReason.allKnown.count == 39)
        #expect(Set(APNSRejectionReason.allKnown).count == 39)
        #expect(Self.statuses.values.map(\.count).reduce(0, +) == 39)
    }

    @Test("the broadcast table's \"Service Unavailable\" reads as ServiceUnavailable")
    func spacedServiceUnavailable() {
        #expect(APNSRejectionReason(rawValue: "Service Unavailable") == .serviceUnavailable)
        #expect(APNSRejectionReason.serviceUnavailable.rawValue == "ServiceUnavailable")
    }

    @Test("retry and token classification")
    func classification() {
        let retryable = APNSRejectionReason.allKnown.filter(\.isRetryable).map(\.rawValue)
        #expect(retryable == ["TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown"])
        let invalidating = APNSRejectionReason.allKnown.filter(\.invalidatesToken).map(\.rawValue)
        #expect(invalidating == ["BadDeviceToken", "DeviceTokenNotForTopic", "ExpiredToken", "Unregistered"])
        #expect(APNSRejectionReason.unknown("BadTopic") == .badTopic)
    }

    @Test("outcome helpers")
    func outcome() {
        let accepted = APNSOutcome.accepted(apnsID: "a", uniqueID: nil)
        #expect(accepted.isAccepted && accepted.apnsID == "a" && accepted.rejection == nil)
        let rejected = APNSOutcome.rejected(APNSRejection(.shutdown, apnsID: "b"))
        #expect(!rejected.isAccepted && rejected.apnsID == "b" && rejected.rejection?.status == 503)
    }
}
