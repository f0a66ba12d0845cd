import APNSCore
import APNSMock
import Foundation
import JSON
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

@testable import PushService

@Suite("live credential reload (POST /v1/admin/reload, SIGHUP)")
struct CredentialReloadTests {
    /// Writes a renewed dogs certificate (new key, same bundle and topics, another end of validity) over the
    /// old file; returns its SHA-256 fingerprint.
    @discardableResult
    static func renew(_ fixture: MultiAppFixture, days: Double) throws -> String {
        let renewed = try fixture.dogsAuthority.issueClientCertificate(
            bundleID: MultiAppFixture.dogs, topics: [MultiAppFixture.dogs, MultiAppFixture.dogs + ".voip"],
            notAfter: Date().addingTimeInterval(days * 86400))
        try Data(try renewed.pkcs12(password: "dogs-pw")).write(to: URL(fileURLWithPath: fixture.dogsP12Path), options: .atomic)
        return try renewed.certificate().sha256Fingerprint
    }

    @Test("a certificate renewed under load: new connections use it, the old ones drain, nothing is lost and no request fails")
    func renewUnderLoad() async throws {
        let fixture = try await MultiAppFixture.start(latency: .fixed(.milliseconds(5)))
        let client = fixture.client
        let before = try #require(try await client.send("GET", "/v1/apps").json?["apps"]?[0]?["certificate_not_after"]?.stringValue)
        let senders = 4
        let rounds = 10
        let perPush = 10
        let load = (0..<senders).map { _ in
            Task { () -> [Int] in
                var statuses: [Int] = []
                for _ in 0..<rounds {
                    let tokens = (0..<perPush).map { _ in JSONValue.string(ServiceHarness.randomToken()) }
                    let response = try await client.send(
                        "POST", "/v1/pushes?wait=true",
                        json: ["tokens": .array(tokens), "topic": .string(MultiAppFixture.dogs), "environment": "development", "alert": "Walk"])
                    let states = response.json?["notifications"]?.arrayValue?.compactMap { $0["state"]?.stringValue } ?? []
                    statuses.append(response.status == 200 && states == Array(repeating: "accepted", count: perPush) ? 200 : response.status)
                }
                return statuses
            }
        }
        // Mid-load: the first sends are answered, many more are still to come.
        try await awaitEvent("40 notifications accepted by the dogs mock") { [mock = fixture.dogsMock] in
            await mock.waitForAccepted(count: 40)
        }
        let renewedFingerprint = try Self.renew(fixture, days: 400)
        #expect(renewedFingerprint != fixture.dogsFingerprint)
        // The mock saw the old certificate on everything sent before the reload.
        let beforeReload = fixture.dogsMock.records()
        #expect(beforeReload.count >= 40)
        #expect(beforeReload.allSatisfy { $0.clientCertificateFingerprint == fixture.dogsFingerprint })
        let reload = try await client.send("POST", "/v1/admin/reload")
        #expect(reload.status == 200)
        #expect(reload.json?["apps"]?.arrayValue?.compactMap { $0["outcome"]?.stringValue } == ["reloaded", "unchanged"])
        var statuses: [Int] = []
        for task in load { statuses += try await task.value }
        #expect(statuses == Array(repeating: 200, count: senders * rounds))

        let records = fixture.dogsMock.records()
        #expect(records.count == senders * rounds * perPush)
        #expect(Set(records.map(\.token)).count == senders * rounds * perPush)
        #expect(records.allSatisfy { $0.isAccepted })
        let firstConnection = try #require(records.first?.connectionID)
        #expect(records.last?.connectionID != firstConnection, "sends after the reload use a new connection")
        // At the mock: each connection presented one certificate, the old one before the reload, the renewed
        // one on the connections opened after it; the last sends came with the renewed one.
        let fingerprints = Dictionary(grouping: records, by: \.connectionID).mapValues { Set($0.map(\.clientCertificateFingerprint)) }
        #expect(fingerprints.values.allSatisfy { $0.count == 1 }, "one certificate per connection")
        #expect(Set(records.map(\.clientCertificateFingerprint)) == [fixture.dogsFingerprint, renewedFingerprint])
        #expect(records.last?.clientCertificateFingerprint == renewedFingerprint)
        #expect(try await fixture.metric(#"push_notifications_total{app="dogs",outcome="accepted",reason=""}"#) == Double(records.count))
        #expect(try await fixture.metric(#"push_notifications_total{app="dogs",outcome="retry",reason=""}"#) == nil)
        let afterApps = try await client.send("GET", "/v1/apps").json?["apps"]?[0]
        #expect(afterApps?["certificate_not_after"]?.stringValue != before)
        #expect(afterApps?["reload_error"] == nil)
        let after = try await client.send(
            "POST", "/v1/pushes?wait=true",
            json: [
                "tokens": [.string(ServiceHarness.randomToken())], "topic": .string(MultiAppFixture.dogs), "environment": "development",
                "alert": "Walk",
            ])
        #expect(after.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
        #expect(fixture.dogsMock.records().last?.clientCertificateFingerprint == renewedFingerprint, "a send after the reload")
        await fixture.stop()
    }

    @Test("a broken new file keeps the old credential, answers 422, shows in /healthz; a good file clears it")
    func brokenFileKeepsOld() async throws {
        let fixture = try await MultiAppFixture.start()
        let dog = try await fixture.device("rex", topic: MultiAppFixture.dogs)
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: fixture.dogsP12Path), options: .atomic)
        let broken = try await fixture.client.send("POST", "/v1/admin/reload")
        #expect(broken.status == 422)
        #expect(broken.errorCode == "reload_failed")
        #expect(broken.json?["error"]?["message"]?.stringValue?.contains("app dogs: APNs certificate") == true)
        let health = try await fixture.client.send("GET", "/healthz")
        #expect(health.json?["status"]?.stringValue == "degraded")
        #expect(health.json?["apps"]?[0]?["reload_error"]?.stringValue?.contains("is not a PKCS#12") == true)
        #expect(health.json?["apps"]?[1]?["reload_error"] == nil)
        let push = try await fixture.client.send(
            "POST", "/v1/pushes?wait=true", json: ["tokens": .array([.string(dog)]), "topic": .string(MultiAppFixture.dogs), "alert": "Still here"])
        #expect(push.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")

        let renewed = try Self.renew(fixture, days: 200)
        await fixture.server.reload()
        let healed = try await fixture.client.send("GET", "/healthz")
        #expect(healed.json?["status"]?.stringValue == "ok")
        #expect(healed.json?["apps"]?[0]?["reload_error"] == nil)
        let again = try await fixture.client.send(
            "POST", "/v1/pushes?wait=true", json: ["tokens": .array([.string(dog)]), "topic": .string(MultiAppFixture.dogs), "alert": "Renewed"])
        #expect(again.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
        #expect(fixture.dogsMock.records().map(\.clientCertificateFingerprint) == [fixture.dogsFingerprint, renewed])
        await fixture.stop()
    }

    @Test("the replaced sender finishes its sends before it is shut down; new sends go to the new one")
    func swappableSenderDrains() async throws {
        let old = RecordingSender()
        let new = RecordingSender()
        let sender = SwappableSender(old, drainDeadline: .seconds(1))
        let notification = APNSNotificationFixture.make()
        let results = ResultCounter()
        await sender.send(batch: [notification, notification]) { results.add($0.count) }
        sender.replace(with: new)
        #expect(sender.draining == 1)
        #expect(old.shutdowns == 0, "two results are still to come")
        await sender.send(batch: [notification]) { results.add($0.count) }
        #expect(new.sent == 1)
        old.answerAll()
        try await old.waitForShutdown()
        #expect(sender.draining == 0)
        new.answerAll()
        #expect(results.total == 3)
        #expect(new.shutdowns == 0)
    }
}
