import APNS
import APNSCore
import APNSMock
import Foundation
import JSON
import PushStore
import PushTLS
import Testing

@testable import PushService

@Suite("several apps on one server, each with its own credential and mock APNs")
struct MultiAppServiceTests {
    @Test("a push's topic picks its app: certificate app, its .voip topic, token app; an unserved topic is 422 and stores nothing")
    func routingByTopic() async throws {
        let fixture = try await MultiAppFixture.start()
        let dog = try await fixture.device("rex", topic: MultiAppFixture.dogs)
        let walker = try await fixture.device("sam", topic: MultiAppFixture.walks)
        for (token, topic) in [(dog, MultiAppFixture.dogs), (walker, MultiAppFixture.walks)] {
            let push = try await fixture.client.send(
                "POST", "/v1/pushes?wait=true",
                json: ["tokens": .array([.string(token)]), "topic": .string(topic), "alert": "Walk time"])
            #expect(push.status == 200)
            #expect(push.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
        }
        let voip = try await fixture.client.send(
            "POST", "/v1/pushes?wait=true",
            json: [
                "tokens": .array([.string(dog)]), "topic": .string(MultiAppFixture.dogs + ".voip"), "push_type": "voip",
                "payload": ["call": "bark"],
            ])
        #expect(voip.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(String(decoding: voip.body, as: UTF8.self))")
        #expect(fixture.dogsMock.records().map(\.token) == [dog, dog])
        #expect(fixture.dogsMock.records().map(\.topic) == [MultiAppFixture.dogs, MultiAppFixture.dogs + ".voip"])
        #expect(fixture.walksMock.records().map(\.token) == [walker])
        #expect(fixture.walksMock.records().first?.headers.contains { $0.name == "authorization" } == true)

        let before = try await fixture.server.repositories.outbox.counts().values.reduce(0, +)
        let unserved = try await fixture.client.send(
            "POST", "/v1/pushes", json: ["tokens": .array([.string(dog)]), "topic": "com.example.cats", "alert": "Meow"])
        #expect(unserved.status == 422)
        #expect(unserved.errorCode == "unknown_topic")
        let device = try await fixture.client.send(
            "POST", "/v1/devices",
            json: ["token": .string(dog), "user_id": "rex", "topic": "com.example.cats", "environment": "development"])
        #expect(device.errorCode == "unknown_topic")
        #expect(try await fixture.server.repositories.outbox.counts().values.reduce(0, +) == before)
        // Without a topic, the first app's bundle id is the default.
        let plain = try await fixture.client.send(
            "POST", "/v1/pushes?wait=true", json: ["tokens": .array([.string(dog)]), "alert": "Default topic"])
        #expect(plain.json?["notifications"]?[0]?["topic"]?.stringValue == MultiAppFixture.dogs)
        await fixture.stop()
    }

    @Test("/metrics counts pushes, latency and connections by app; /v1/apps and /healthz list each app's topics and credential")
    func perAppMetricsAndListing() async throws {
        let fixture = try await MultiAppFixture.start()
        let dog = try await fixture.device("rex", topic: MultiAppFixture.dogs)
        let walker = try await fixture.device("sam", topic: MultiAppFixture.walks)
        let pushes: [(String, String, Int)] = [(dog, MultiAppFixture.dogs, 3), (walker, MultiAppFixture.walks, 2)]
        for (token, topic, count) in pushes {
            for _ in 0..<count {
                let push = try await fixture.client.send(
                    "POST", "/v1/pushes?wait=true", json: ["tokens": .array([.string(token)]), "topic": .string(topic), "alert": "Hi"])
                #expect(push.status == 200)
            }
        }
        #expect(try await fixture.metric(#"push_notifications_total{app="dogs",outcome="accepted",reason=""}"#) == 3)
        #expect(try await fixture.metric(#"push_notifications_total{app="walks",outcome="accepted",reason=""}"#) == 2)
        #expect(try await fixture.metric(#"push_send_latency_seconds_count{app="dogs"}"#) == 3)
        #expect(try await fixture.metric(#"push_send_latency_seconds_count{app="walks"}"#) == 2)
        #expect(try await fixture.metric(#"push_apns_connections{app="dogs",environment="development"}"#) == 1)
        #expect(try await fixture.metric(#"push_apns_connections{app="walks",environment="development"}"#) == 1)
        #expect(try await fixture.metric(#"push_apns_up{app="walks",environment="development"}"#) == 1)
        #expect(try await fixture.metric(#"push_apns_certificate_not_after_timestamp_seconds{app="dogs",environment="production"}"#) != nil)

        let apps = try #require(try await fixture.client.send("GET", "/v1/apps").json?["apps"]?.arrayValue)
        #expect(apps.compactMap { $0["name"]?.stringValue } == ["dogs", "walks"])
        #expect(apps[0]["credential"]?.stringValue == "certificate")
        #expect(apps[0]["certificate_topics"]?.arrayValue?.compactMap(\.stringValue) == [MultiAppFixture.dogs, MultiAppFixture.dogs + ".voip"])
        #expect(apps[0]["topics"]?.arrayValue?.compactMap(\.stringValue) == [MultiAppFixture.dogs, MultiAppFixture.dogs + ".voip"])
        #expect(apps[1]["credential"]?.stringValue == "token")
        #expect(apps[1]["key_id"]?.stringValue == "KEY123ABCD")
        #expect(apps[1]["max_in_flight"]?.intValue == 100)
        #expect(apps[1]["connections"]?["development"]?["ready"]?.intValue == 1)
        let health = try await fixture.client.send("GET", "/healthz")
        #expect(health.json?["status"]?.stringValue == "ok")
        #expect(health.json?["apps"]?.arrayValue?.compactMap { $0["development"]?.stringValue } == ["ok", "ok"])
        await fixture.stop()
    }

    @Test("one app throttled (429 TooManyRequests, TooManyProviderTokenUpdates) slows nobody else: the other app's pushes are accepted")
    func throttledAppIsolated() async throws {
        let fixture = try await MultiAppFixture.start()
        let dog = try await fixture.device("rex", topic: MultiAppFixture.dogs)
        let walker = try await fixture.device("sam", topic: MultiAppFixture.walks)
        fixture.dogsMock.setHandler(MockAPNSHandlers.rejectAll(.tooManyRequests))
        fixture.walksMock.setHandler(MockAPNSHandlers.rejectAll(.tooManyProviderTokenUpdates))
        _ = try await fixture.client.send(
            "POST", "/v1/pushes", json: ["tokens": .array([.string(dog)]), "topic": .string(MultiAppFixture.dogs), "alert": "Throttled"])
        _ = try await fixture.client.send(
            "POST", "/v1/pushes", json: ["tokens": .array([.string(walker)]), "topic": .string(MultiAppFixture.walks), "alert": "Throttled"])
        #expect(await fixture.dogsMock.nextRejection().rejection?.reason == .tooManyRequests)
        #expect(await fixture.walksMock.nextRejection().rejection?.reason == .tooManyProviderTokenUpdates)
        // Walks recovers while dogs stays throttled (its row keeps coming back): walks' next push goes through.
        fixture.walksMock.setHandler(nil)
        let walk = try await fixture.client.send(
            "POST", "/v1/pushes?wait=true",
            json: ["tokens": .array([.string(ServiceHarness.randomToken())]), "topic": .string(MultiAppFixture.walks), "alert": "Walk"])
        #expect(walk.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
        #expect(walk.json?["complete"]?.boolValue == true)
        #expect(fixture.dogsMock.records().allSatisfy { !$0.isAccepted })
        await fixture.stop()
    }

    @Test("apps naming the same .p8, key id and team id share one token provider; another key gets its own")
    func sharedTeamKey() throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try ES256PrivateKey.generate()
        try key.pkcs8PEM.write(toFile: directory + "/team.p8", atomically: true, encoding: .utf8)
        try ES256PrivateKey.generate().pkcs8PEM.write(toFile: directory + "/other.p8", atomically: true, encoding: .utf8)
        func app(_ topic: String, _ file: String) -> PushServiceConfiguration.AppSettings {
            var app = PushServiceConfiguration.AppSettings(topic: topic)
            app.p8Path = directory + "/" + file
            app.keyID = "KEY123ABCD"
            app.teamID = "TEAM12345A"
            return app
        }
        var providers: [String: APNSTokenProvider] = [:]
        let first = try PushAppCredential.load(app("com.a", "team.p8"), providers: &providers)
        let second = try PushAppCredential.load(app("com.b", "team.p8"), providers: &providers)
        let third = try PushAppCredential.load(app("com.c", "other.p8"), providers: &providers)
        guard case .tokenProvider(let a) = first.credentials, case .tokenProvider(let b) = second.credentials,
            case .tokenProvider(let c) = third.credentials
        else {
            Issue.record("token credentials expected")
            return
        }
        #expect(a === b)
        #expect(a !== c)
        #expect(first.fingerprint == second.fingerprint && first.fingerprint != third.fingerprint)
    }

    @Test("a queued row whose topic no app serves any more (its app left the configuration) ends rejected, TopicDisallowed")
    func rowOfRemovedApp() async throws {
        let fixture = try await MultiAppFixture.start()
        let item = OutboxItem(
            pushID: OutboxID.make(), token: try DeviceToken(ServiceHarness.randomToken()), topic: "com.example.gone",
            pushType: .alert, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), environment: .development, now: Date())
        try await fixture.server.repositories.outbox.enqueue([item])
        var row = try await fixture.server.repositories.outbox.item(id: item.id)
        for _ in 0..<2_000 where row?.state != .rejected {
            await Task.yield()
            row = try await fixture.server.repositories.outbox.item(id: item.id)
        }
        #expect(row?.state == .rejected)
        #expect(row?.lastReason == .rejected(.topicDisallowed))
        #expect(fixture.dogsMock.records().isEmpty && fixture.walksMock.records().isEmpty)
        await fixture.stop()
    }

    @Test("an app whose certificate its APNs rejects fails alone: its backlog over the in-flight limit, the others still go through at once")
    func failingAppIsolated() async throws {
        // 20 in flight at most, 200 of the failing app's notifications queued first: were they held for the
        // request timeout (30 s), the others' ?wait=true (10 s here) would end incomplete.
        let fixture = try await MultiAppFixture.start(withFailingApp: true, maxInFlight: 20, waitTimeout: 10)
        let cat = try await fixture.device("tom", topic: MultiAppFixture.cats)
        let dog = try await fixture.device("rex", topic: MultiAppFixture.dogs)
        let walker = try await fixture.device("sam", topic: MultiAppFixture.walks)
        let refused = try await fixture.client.send(
            "POST", "/v1/pushes",
            json: [
                "tokens": .array([.string(cat)] + (1..<200).map { _ in .string(ServiceHarness.randomToken()) }),
                "topic": .string(MultiAppFixture.cats), "environment": "development", "alert": "Meow",
            ])
        #expect(refused.status == 202)
        for round in 0..<5 {
            for (token, topic) in [(dog, MultiAppFixture.dogs), (walker, MultiAppFixture.walks)] {
                let push = try await fixture.client.send(
                    "POST", "/v1/pushes?wait=true",
                    json: ["tokens": .array([.string(token)]), "topic": .string(topic), "alert": .string("Round \(round)")])
                #expect(push.json?["complete"]?.boolValue == true)
                #expect(push.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
            }
        }
        #expect(fixture.dogsMock.records().count == 5)
        #expect(fixture.walksMock.records().count == 5)
        #expect(fixture.catsMock?.records().isEmpty == true)
        #expect(try await fixture.metric(#"push_notifications_total{app="cats",outcome="accepted",reason=""}"#) == nil)
        #expect(try await fixture.metric(#"push_apns_connections{app="cats",environment="development"}"#) == 0)
        // The handshake failure is recorded as the clients see it; /healthz shows it for cats alone.
        var health = try await fixture.client.send("GET", "/healthz").json
        for _ in 0..<2_000 where health?["apps"]?[2]?["development"]?.stringValue != "unreachable" {
            health = try await fixture.client.send("GET", "/healthz").json
        }
        #expect(health?["status"]?.stringValue == "degraded")
        #expect(health?["apps"]?.arrayValue?.compactMap { $0["development"]?.stringValue } == ["ok", "ok", "unreachable"])
        #expect(health?["apps"]?[2]?["connection_errors"]?["development"]?.stringValue != nil)
        let pushID = try #require(refused.json?["push_id"]?.stringValue)
        let states = try await fixture.client.send("GET", "/v1/pushes/\(pushID)").json?["notifications"]?.arrayValue ?? []
        #expect(states.count == 200)
        #expect(states.allSatisfy { $0["state"]?.stringValue != "accepted" })
        await fixture.stop()
    }
}
