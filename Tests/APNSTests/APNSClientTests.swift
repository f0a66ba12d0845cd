import APNS
import APNSCore
import APNSMock
import Foundation
import PushTLSTesting
import Testing

@Suite("APNs client against the mock server over TLS")
struct APNSClientTests {
    @Test("path and every header on the wire as Apple documents")
    func headersOnTheWire() async throws {
        try await withClient { fixture in
            let id = "9f3b7a52-1c4e-4b8a-9d2e-3f6a1b2c3d4e"
            let notification = APNSNotification(
                token: tokenA, topic: bundleID, pushType: .alert, priority: .consideringDevicePower,
                expiration: .at(epochSeconds: 1_900_000_000), collapseID: "drop-42", apnsID: id, payload: .alert("Woof"))
            let outcome = try await fixture.client.send(notification)
            #expect(outcome == .accepted(apnsID: id, uniqueID: outcome.uniqueIDForTest))
            let record = try #require(fixture.server.records().first)
            #expect(record.token == tokenA.hex)
            #expect(record.topic == bundleID)
            let headers = Dictionary(record.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            #expect(headers["apns-topic"] == bundleID)
            #expect(headers["apns-push-type"] == "alert")
            #expect(headers["apns-priority"] == "5")
            #expect(headers["apns-expiration"] == "1900000000")
            #expect(headers["apns-collapse-id"] == "drop-42")
            #expect(headers["apns-id"] == id)
            #expect(headers["authorization"] == nil)
            #expect(record.payload == APNSPayload.alert("Woof").encoded())
        }
    }

    @Test("10,000 notifications on one connection limited to 100 streams: never more than 100 open, all answered")
    func streamLimit() async throws {
        try await withClient(configureServer: {
            $0.maxConcurrentStreams = 100
            $0.latency = .fixed(.milliseconds(1))
        }) { fixture in
            let results = await sendAll(fixture.client, (0..<10_000).map { alert(token($0)) })
            #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
            #expect(fixture.server.maxObservedConcurrentStreams <= 100)
            #expect(fixture.server.counters().accepted == 10_000)
        }
    }

    @Test("stream limit dropping to 1 after a rejection and rising again: every notification gets its outcome")
    func streamLimitDropAndRestore() async throws {
        let rejected = Set((0..<2000).filter { $0 % 100 == 7 }.map { token($0).hex })
        try await withClient(configureServer: { configuration in
            configuration.dropStreamLimitAfterRejection = true
            configuration.handler = { request in rejected.contains(request.token ?? "") ? .reject(.badDeviceToken) : nil }
        }) { fixture in
            let tokens = (0..<2000).map { token($0) }
            let results = await sendAll(fixture.client, tokens.map { alert($0) })
            for (index, result) in results.enumerated() {
                let outcome = try result.get()
                if rejected.contains(tokens[index].hex) {
                    #expect(outcome.rejection?.reason == .badDeviceToken)
                } else {
                    #expect(outcome.isAccepted)
                }
            }
            #expect(fixture.events.count("failed:notSent") == 0)
        }
    }

    @Test("GOAWAY in the middle of a burst: nothing lost, nothing sent twice")
    func goAwayMidBurst() async throws {
        try await withClient(configureServer: { $0.goAwayAfterStreams = 700 }) { fixture in
            let results = await sendAll(fixture.client, (0..<3000).map { alert(token($0)) })
            let failures = results.compactMap { result -> String? in
                if case .failure(let error) = result { return error.description }
                return nil
            }
            #expect(failures.isEmpty, "\(Set(failures))")
            #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
            let accepted = fixture.server.records().filter { $0.outcome.isAccepted }.map(\.token)
            #expect(accepted.count == 3000)
            #expect(Set(accepted).count == 3000)
            #expect(fixture.server.counters().goAwaysSent >= 4)
        }
    }

    @Test("server drops the connection mid-burst: every send ends with an outcome or a transport error")
    func abruptClose() async throws {
        try await withClient(
            configureServer: {
                $0.abruptCloseAfterStreams = 300
                $0.latency = .fixed(.milliseconds(2))
            },
            configureClient: { $0.requestTimeout = .seconds(20) }
        ) { fixture in
            let results = await sendAll(fixture.client, (0..<1000).map { alert(token($0)) })
            #expect(results.count == 1000)
            var accepted = 0
            var unknown = 0
            for result in results {
                switch result {
                case .success(let outcome): if outcome.isAccepted { accepted += 1 }
                case .failure(let error): if error.kind == .outcomeUnknown { unknown += 1 }
                }
            }
            #expect(accepted + unknown == 1000)
            #expect(unknown > 0)
        }
    }

    @Test("reconnects back off instead of looping when APNs is unreachable")
    func reconnectBackOff() async throws {
        let authority = try TestCertificateAuthority()
        let credential = try authority.issueClientCertificate(bundleID: bundleID)
        let events = EventLog()
        var configuration = APNSClientConfiguration(
            credentials: .identity(try credential.identity()), environment: .custom(host: "127.0.0.1", port: 1),
            trustedCAPEM: authority.certificatePEM)
        configuration.requestTimeout = .milliseconds(2500)
        configuration.metrics = events
        let client = try APNSClient(configuration: configuration)
        await #expect(throws: APNSTransportError.self) { try await client.send(alert()) }
        // Attempts at 0 s, then after 0.5–1 s, then after 1–2 s more: three at most within 2.5 s.
        #expect(events.count("closed") <= 3)
        #expect(events.count("closed") >= 1)
        await client.shutdown()
    }

    @Test("payload size limits: 4,096 accepted, 4,097 refused locally; 5,120 / 5,121 for voip")
    func payloadLimits() async throws {
        try await withClient { fixture in
            func payload(_ size: Int) -> [UInt8] {
                let prefix = Array(#"{"aps":{"alert":""#.utf8)
                let suffix = Array(#""}}"#.utf8)
                return prefix + [UInt8](repeating: UInt8(ascii: "a"), count: size - prefix.count - suffix.count) + suffix
            }
            let ok = try await fixture.client.send(APNSNotification(token: tokenA, topic: bundleID, payload: payload(4096)))
            #expect(ok.isAccepted)
            let big = try await fixture.client.send(APNSNotification(token: tokenA, topic: bundleID, payload: payload(4097)))
            #expect(big.rejection?.reason == .payloadTooLarge)
            #expect(big.rejection?.status == 413)
            let voip = bundleID + ".voip"
            let voipOK = try await fixture.client.send(APNSNotification(token: tokenA, topic: voip, pushType: .voip, payload: payload(5120)))
            #expect(voipOK.isAccepted)
            let voipBig = try await fixture.client.send(APNSNotification(token: tokenA, topic: voip, pushType: .voip, payload: payload(5121)))
            #expect(voipBig.rejection?.reason == .payloadTooLarge)
            #expect(fixture.server.counters().accepted == 2)
        }
    }

    @Test("modern and legacy .p12 files both authenticate", arguments: [false, true])
    func pkcs12(legacy: Bool) async throws {
        let authority = try TestCertificateAuthority()
        var (configuration, credential) = try MockAPNSServer.makeForTesting(bundleID: bundleID, authority: authority)
        configuration.port = 0
        let server = try MockAPNSServer(configuration: configuration)
        defer { server.stop() }
        let path = NSTemporaryDirectory() + "client-\(UUID().uuidString).p12"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(try credential.pkcs12(password: "s3cret", legacy: legacy)).write(to: URL(fileURLWithPath: path))
        let client = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: .pkcs12(path: path, password: "s3cret"),
                environment: .custom(host: "127.0.0.1", port: server.port, isDevelopment: true),
                trustedCAPEM: server.credentials.caPEM))
        let outcome = try await client.send(alert())
        #expect(outcome.isAccepted)
        #expect(server.records().first?.clientCertificateUID == bundleID)
        await client.shutdown()
    }

    @Test("a send to a shut-down client throws .shutdown")
    func shutdownRefuses() async throws {
        let fixture = try ClientFixture()
        await fixture.close()
        await #expect(throws: APNSTransportError(.shutdown, "client is shut down")) { try await fixture.client.send(alert()) }
    }
}

extension APNSOutcome {
    /// The unique id of an accepted outcome (development servers send one), for equality checks.
    var uniqueIDForTest: String? {
        if case .accepted(_, let uniqueID) = self { return uniqueID }
        return nil
    }
}
