import APNSCore
import APNSMock
import Foundation
import PushHTTP
import PushHTTP2
import PushTLSTesting
import TestSupport
import Testing

@Suite("Mock APNs server: token state, identifiers, certificate environments, recording")
struct MockAPNSStateTests {
    @Test("410 Unregistered carries the unregistration time in milliseconds; ExpiredToken has none")
    func unregisteredAndExpired() async throws {
        try await withFixture { fixture in
            fixture.server.unregisterToken(tokenA, at: Date(timeIntervalSince1970: 1_700_000_000.123))
            fixture.server.expireToken(tokenB)
            let connection = try fixture.connection()

            let unregistered = try await respond(connection, apnsRequest(token: tokenA))
            #expect(unregistered.status == 410)
            #expect(text(unregistered.body) == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
            let rejection = APNSRejection.parse(status: unregistered.status, body: unregistered.body, apnsID: nil)
            #expect(rejection.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))

            let expired = try await respond(connection, apnsRequest(token: tokenB))
            #expect(expired.status == 410)
            #expect(text(expired.body) == #"{"reason":"ExpiredToken"}"#)

            fixture.server.registerToken(tokenA, topic: bundleID)
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 200)
        }
    }

    @Test("a topic with registered tokens refuses other tokens with DeviceTokenNotForTopic; other topics take any")
    func deviceTokenNotForTopic() async throws {
        try await withFixture { fixture in
            fixture.server.registerToken(tokenA, topic: bundleID)
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 200)
            let other = try await respond(connection, apnsRequest(token: tokenB))
            #expect(other.status == 400)
            #expect(text(other.body) == #"{"reason":"DeviceTokenNotForTopic"}"#)
            let voip = try await respond(connection, apnsRequest(token: tokenB, topic: bundleID + ".voip", pushType: "voip"))
            #expect(voip.status == 200)
        }
    }

    @Test("apns-id is echoed when sent (also on rejections) and generated in lowercase when not")
    func apnsID() async throws {
        try await withFixture { fixture in
            let connection = try fixture.connection()
            let given = "123E4567-E89B-12D3-A456-426614174000"
            let echoed = try await respond(connection, apnsRequest(extraHeaders: [(APNSHeader.id, given)]))
            #expect(echoed.header(APNSHeader.id) == given)
            let rejected = try await respond(connection, apnsRequest(topic: "com.other.app", extraHeaders: [(APNSHeader.id, given)]))
            #expect(rejected.status == 400)
            #expect(rejected.header(APNSHeader.id) == given)
            let first = try #require(try await respond(connection, apnsRequest()).header(APNSHeader.id))
            let second = try #require(try await respond(connection, apnsRequest()).header(APNSHeader.id))
            #expect(APNSID.isValid(first) && first == first.lowercased() && first != second)
        }
    }

    @Test("apns-unique-id only in development, only on success", arguments: [MockAPNSServer.Environment.development, .production])
    func uniqueID(environment: MockAPNSServer.Environment) async throws {
        try await withFixture(configure: { $0.environment = environment }) { fixture in
            let connection = try fixture.connection()
            let accepted = try await respond(connection, apnsRequest())
            #expect(accepted.status == 200)
            #expect((accepted.header(APNSHeader.uniqueID) != nil) == (environment == .development))
            if let unique = accepted.header(APNSHeader.uniqueID) { #expect(APNSID.isValid(unique)) }
            #expect(try await respond(connection, apnsRequest(token: "00")).header(APNSHeader.uniqueID) == nil)
        }
    }

    @Test(
        "a certificate without the server's environment marker gets 403 BadCertificateEnvironment",
        arguments: [
            (MockAPNSServer.Environment.development, APNSCertificateEnvironments.production),
            (.production, .development),
        ])
    func badCertificateEnvironment(server: MockAPNSServer.Environment, certificate: APNSCertificateEnvironments) async throws {
        try await withFixture(configure: { $0.environment = server }) { fixture in
            let wrong = try fixture.authority.issueClientCertificate(
                bundleID: bundleID, topics: universalTopics,
                environments: certificate)
            let response = try await respond(try fixture.connection(identity: wrong), apnsRequest())
            #expect(response.status == 403)
            #expect(text(response.body) == #"{"reason":"BadCertificateEnvironment"}"#)
            #expect(try await respond(try fixture.connection(), apnsRequest()).status == 200)
        }
    }

    @Test("a single-topic certificate: apns-topic defaults to its UID; its own suffixed topics are TopicDisallowed")
    func singleTopicCertificate() async throws {
        try await withFixture(topics: []) { fixture in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest(topic: nil)).status == 200)
            #expect(fixture.server.records().last?.topic == bundleID)
            let voip = try await respond(connection, apnsRequest(topic: bundleID + ".voip", pushType: "voip"))
            #expect(text(voip.body) == #"{"reason":"TopicDisallowed"}"#)
        }
    }

    @Test("records hold token, topic, headers, payload, certificate UID, apns-id, outcome and connection")
    func recording() async throws {
        try await withFixture { fixture in
            let server = fixture.server
            let waiter = Task { await server.waitForAccepted(count: 3) }
            let connection = try fixture.connection()
            let results = await sendBatch(connection, [apnsRequest(), apnsRequest(), apnsRequest(token: tokenB)])
            #expect(results.allSatisfy { (try? $0.get().status) == 200 })
            try await awaitEvent("3 notifications accepted by the mock") { await waiter.value }
            _ = try await respond(connection, apnsRequest(topic: "com.other.app"))
            let rejection = await server.nextRejection()
            #expect(rejection.rejection?.reason == .badTopic)
            #expect(rejection.rejection?.status == 400)
            #expect(rejection.topic == "com.other.app")

            let records = server.records()
            #expect(records.count == 4)
            let record = try #require(records.first { $0.token == tokenB })
            #expect(record.isAccepted)
            #expect(record.topic == bundleID)
            #expect(record.header(APNSHeader.pushType) == "alert")
            #expect(record.payload == alertPayload)
            #expect(record.clientCertificateUID == bundleID)
            #expect(APNSID.isValid(record.apnsID) && record.outcome.apnsID == record.apnsID)
            #expect(Set(records.map(\.connectionID)).count == 1)

            let counters = server.counters()
            #expect(counters.accepted == 3 && counters.rejected == 1 && counters.streams == 4)
            #expect(counters.rejectedByReason == [.badTopic: 1])
            #expect(counters.connections == 1 && counters.openConnections == 1)
            server.reset()
            #expect(server.records().isEmpty && server.counters().accepted == 0)
        }
    }

    @Test("nextRejection waits for a rejection that has not happened yet; waitForAccepted returns at once when met")
    func waiters() async throws {
        try await withFixture { fixture in
            let server = fixture.server
            let pending = Task { await server.nextRejection() }
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            try await awaitEvent("1 notification accepted by the mock") { [mock = server] in await mock.waitForAccepted(count: 1) }
            #expect(try await respond(connection, apnsRequest(pushType: "bogus")).status == 400)
            #expect(await pending.value.rejection?.reason == .invalidPushType)
            let cancelled = Task { await server.waitForAccepted(count: 1_000) }
            cancelled.cancel()
            await cancelled.value
        }
    }

    @Test("a per-token handler overrides the rules for its tokens only, and can be replaced while running")
    func perTokenHandler() async throws {
        try await withFixture(configure: { $0.handler = MockAPNSHandlers.perToken([tokenA: .reject(.shutdown)]) }) { fixture in
            let connection = try fixture.connection()
            let shut = try await respond(connection, apnsRequest(token: tokenA))
            #expect(shut.status == 503)
            #expect(text(shut.body) == #"{"reason":"Shutdown"}"#)
            #expect(try await respond(connection, apnsRequest(token: tokenB)).status == 200)
            fixture.server.setHandler { _ in .accept }
            #expect(try await respond(connection, apnsRequest(token: "not-a-token")).status == 200)
            fixture.server.setHandler(nil)
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 200)
        }
    }
}

@Suite("Mock APNs server: every reason Apple documents, with its exact status and body")
struct MockAPNSReasonTests {
    /// The handler shortcut: reject with the reason named in `x-reject-with` (410s get a timestamp).
    static let rejectWithHeader: MockAPNSHandler = { request in
        request.header("x-reject-with").map {
            .reject(APNSRejectionReason(rawValue: $0), timestamp: Date(timeIntervalSince1970: 1_234_567.891))
        }
    }

    @Test("handler rejection → Apple's status and JSON body", arguments: APNSRejectionReason.allKnown)
    func reason(_ reason: APNSRejectionReason) async throws {
        let response = try await withFixture(configure: { $0.handler = Self.rejectWithHeader }) { fixture in
            try await respond(try fixture.connection(), apnsRequest(extraHeaders: [("x-reject-with", reason.rawValue)]))
        }
        #expect(response.status == reason.status)
        let expected =
            reason.status == 410
            ? #"{"reason":"\#(reason.rawValue)","timestamp":1234567891}"#
            : #"{"reason":"\#(reason.rawValue)"}"#
        #expect(text(response.body) == expected)
        #expect(response.header(APNSHeader.id).map(APNSID.isValid) == true)
    }
}
