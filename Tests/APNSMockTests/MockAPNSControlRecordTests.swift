import APNSCore
import APNSMock
import Foundation
import JSON
import PushHTTP
import PushHTTP2
import PushTLS
import PushTLSTesting
import Testing

@Suite("Mock control API: records, long-poll waits, reset")
struct MockAPNSControlRecordTests {
    @Test("a record holds exactly what the client sent: headers in order, payload byte for byte, the answer")
    func recordsAreExact() async throws {
        try await withControl { fixture, control in
            let payload = Array(#"{"aps":{"alert":"Grüße 🐕 \"quoted\""},"n":1.50}"#.utf8)
            let headers: [(name: String, value: String)] = [
                ("apns-topic", bundleID), ("apns-push-type", "alert"), ("apns-priority", "10"),
                ("apns-collapse-id", "walk-1"), ("apns-id", "6f9a2c3e-1b2d-4e5f-8a9b-0c1d2e3f4a5b"),
            ]
            let request = HTTP2Request(
                authority: "127.0.0.1", path: APNSHeader.devicePathPrefix + tokenA,
                headers: headers, body: payload)
            let connection = try fixture.connection()
            let response = try await respond(connection, request)
            #expect(response.status == 200)
            let records = try await control.records()
            let record = try #require(records.first)
            #expect(records.count == 1)
            let sent = headers.map { JSONValue.object(["name": .string($0.name), "value": .string($0.value)]) }
            #expect(record["headers"]?.arrayValue == sent)
            #expect(record["payload"]?.stringValue.map { Array($0.utf8) } == payload)
            let base64 = try #require(record["payload_base64"]?.stringValue)
            #expect(Data(base64Encoded: base64).map(Array.init) == payload)
            #expect(record["token"]?.stringValue == tokenA)
            #expect(record["topic"]?.stringValue == bundleID)
            #expect(record["client_certificate_uid"]?.stringValue == bundleID)
            #expect(record["client_certificate_fingerprint"]?.stringValue == (try fixture.client.certificate().sha256Fingerprint))
            #expect(record["connection"]?.intValue == 1)
            #expect(record["stream"]?.intValue == 1)
            #expect(answerStatus(record) == 200)
            #expect(record["answer"]?["apns_id"]?.stringValue == "6f9a2c3e-1b2d-4e5f-8a9b-0c1d2e3f4a5b")
            #expect(record["answer"]?["apns_unique_id"]?.stringValue != nil)
        }
    }

    @Test("records filter by token and topic; DELETE /records clears them")
    func filterAndClear() async throws {
        try await withControl { fixture, control in
            let connection = try fixture.connection()
            _ = try await respond(connection, apnsRequest(token: tokenA))
            _ = try await respond(connection, apnsRequest(token: tokenB))
            _ = try await respond(connection, apnsRequest(token: tokenB, topic: bundleID + ".voip", pushType: "voip"))
            #expect(try await control.records(token: tokenB).count == 2)
            let voip = try await control.send("GET", "/records?topic=\(bundleID).voip&token=\(tokenB)")
            #expect(voip.json?["count"]?.intValue == 1)
            #expect(try await control.send("DELETE", "/records").status == 204)
            #expect(try await control.records().isEmpty)
        }
    }

    @Test("a wait answers once the records arrive (woken by them), with those records")
    func waitWakes() async throws {
        try await withControl { fixture, control in
            let waiting = Task { try await control.send("GET", "/records/wait?count=2&timeout_ms=30000&token=\(tokenB)") }
            let connection = try fixture.connection()
            // The wait may or may not be registered yet: records already kept count too.
            _ = try await respond(connection, apnsRequest(token: tokenA))
            _ = try await respond(connection, apnsRequest(token: tokenB))
            _ = try await respond(connection, apnsRequest(token: tokenB, extraHeaders: [("apns-priority", "7")]))
            let response = try await waiting.value
            #expect(response.status == 200)
            let records = response.json?["records"]?.arrayValue ?? []
            #expect(records.count == 2)
            #expect(records.allSatisfy { $0["token"]?.stringValue == tokenB })
        }
    }

    @Test("a wait that is not satisfied in time answers 408 with how many records it saw")
    func waitTimesOut() async throws {
        try await withControl { fixture, control in
            let connection = try fixture.connection()
            _ = try await respond(connection, apnsRequest(token: tokenA))
            let clock = ContinuousClock()
            let started = clock.now
            let response = try await control.send("GET", "/records/wait?count=2&timeout_ms=200&token=\(tokenA)")
            #expect(clock.now - started >= .milliseconds(200))
            #expect(response.status == 408)
            #expect(response.errorCode == "timeout")
            #expect(response.json?["count"]?.intValue == 1)
        }
    }

    @Test("reset clears rules, records and token state and restores the starting knobs")
    func reset() async throws {
        try await withControl(configure: { $0.maxConcurrentStreams = 50 }) { fixture, control in
            _ = try await control.addRule(["answer": ["reason": "BadTopic"]])
            _ = try await control.send("PATCH", "/knobs", body: #"{"rate_503":1,"goaway_after":9,"max_streams":3}"#)
            fixture.server.unregisterToken(tokenA, at: Date())
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 400)
            #expect(try await control.send("POST", "/reset").status == 204)
            #expect(try await control.send("GET", "/rules").json?["rules"]?.arrayValue?.isEmpty == true)
            #expect(try await control.records().isEmpty)
            let knobs = try await control.send("GET", "/knobs").json
            #expect(knobs?["rate_503"]?.doubleValue == 0)
            #expect(knobs?["goaway_after"]?.isNull == true)
            #expect(knobs?["max_streams"]?.intValue == 50)
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 200)
            #expect(try await onLoop(connection) { connection.streamLimit } == 50)
            #expect(try await control.send("GET", "/counters").json?["accepted"]?.intValue == 1)
        }
    }
}
