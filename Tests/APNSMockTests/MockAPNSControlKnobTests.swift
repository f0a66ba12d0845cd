import APNSCore
import APNSMock
import Foundation
import JSON
import PushHTTP
import PushHTTP2
import Testing

@Suite("Mock control API: fault knobs on live connections, GOAWAY, bad requests")
struct MockAPNSControlKnobTests {
    @Test("GOAWAY after N set on a live connection: the next request is answered, then GOAWAY with the reason")
    func goAwayAfterOnLiveConnection() async throws {
        try await withControl { fixture, control in
            let connection = try fixture.connection()
            for _ in 0..<3 { #expect(try await respond(connection, apnsRequest()).status == 200) }
            let patched = try await control.send("PATCH", "/knobs", body: #"{"goaway_after":2,"goaway_reason":"IdleTimeout"}"#)
            #expect(patched.status == 200 && patched.json?["goaway_after"]?.intValue == 2)
            #expect(try await respond(connection, apnsRequest()).status == 200)
            let goAway = try await fixture.watcher(for: connection).firstGoAway()
            #expect(goAway.debugData == #"{"reason":"IdleTimeout"}"#)
            #expect(goAway.lastStreamID == 7)
        }
    }

    @Test("POST /goaway sends GOAWAY on every open connection now")
    func goAwayNow() async throws {
        try await withControl { fixture, control in
            let connections = try (0..<2).map { _ in try fixture.connection() }
            for connection in connections { #expect(try await respond(connection, apnsRequest()).status == 200) }
            let response = try await control.send("POST", "/goaway", body: #"{"reason":"Shutdown"}"#)
            #expect(response.json?["connections"]?.intValue == 2)
            for connection in connections {
                #expect(try await fixture.watcher(for: connection).firstGoAway().debugData == #"{"reason":"Shutdown"}"#)
            }
            #expect(try await control.send("GET", "/counters").json?["goaways_sent"]?.intValue == 2)
        }
    }

    @Test("rates, latency and the stream limit change on a live connection from its next request")
    func ratesLatencyStreams() async throws {
        try await withControl { fixture, control in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            _ = try await control.send("PATCH", "/knobs", body: #"{"rate_429":1}"#)
            let throttled = try await respond(connection, apnsRequest())
            #expect(throttled.status == 429 && reason(throttled) == "TooManyRequests")
            _ = try await control.send("PATCH", "/knobs", body: #"{"rate_429":0,"rate_503":1}"#)
            #expect(try await respond(connection, apnsRequest()).status == 503)
            _ = try await control.send("PATCH", "/knobs", body: #"{"rate_503":null,"latency_ms":250,"max_streams":7}"#)
            let clock = ContinuousClock()
            let started = clock.now
            #expect(try await respond(connection, apnsRequest()).status == 200)
            #expect(clock.now - started >= .milliseconds(250))
            #expect(try await onLoop(connection) { connection.streamLimit } == 7)
        }
    }

    @Test("unique_ids turns the sandbox's apns-unique-id off and on for accepted notifications, on a live connection")
    func uniqueIDs() async throws {
        try await withControl { fixture, control in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).header(APNSHeader.uniqueID) != nil)
            let off = try await control.send("PATCH", "/knobs", body: #"{"unique_ids":false}"#)
            #expect(off.status == 200 && off.json?["unique_ids"]?.boolValue == false)
            let production = try await respond(connection, apnsRequest())
            #expect(production.status == 200 && production.header(APNSHeader.uniqueID) == nil)
            _ = try await control.send("PATCH", "/knobs", body: #"{"unique_ids":true}"#)
            #expect(try await respond(connection, apnsRequest()).header(APNSHeader.uniqueID) != nil)
        }
    }

    @Test("close after N resets a live connection at its next request")
    func closeAfter() async throws {
        try await withControl { fixture, control in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            _ = try await control.send("PATCH", "/knobs", body: #"{"close_after":1}"#)
            let result = await send(connection, apnsRequest())
            #expect((try? result.get()) == nil)
            #expect(try await control.send("GET", "/counters").json?["aborts"]?.intValue == 1)
        }
    }

    /// Each bad request and the message that says what is wrong with it.
    static let badRequests: [(method: String, path: String, body: String?, message: String)] = [
        ("POST", "/rules", "{not json", "rule: the body is not valid JSON"),
        ("POST", "/rules", "[]", "rule must be a JSON object"),
        ("POST", "/rules", #"{"match":{"token":"ab"}}"#, "rule.answer is required"),
        ("POST", "/rules", #"{"answer":{"reason":"NoSuchReason"}}"#, "rule.answer.reason: 'NoSuchReason' is not a reason APNs documents"),
        ("POST", "/rules", #"{"answer":{"status":200,"reason":"BadTopic"}}"#, "rule.answer: status 200 takes no reason"),
        ("POST", "/rules", #"{"answer":{"status":302,"reason":"BadTopic"}}"#, "rule.answer.status must be 200 or 400...599"),
        ("POST", "/rules", #"{"answer":{"reason":"BadTopic","timestamp_ms":5}}"#, "rule.answer.timestamp_ms goes with status 410 only"),
        ("POST", "/rules", #"{"answer":{"status":200},"times":0}"#, "rule.times must be a whole number in 1...9223372036854775807"),
        ("POST", "/rules", #"{"answer":{"status":200},"delay_ms":-1}"#, "rule.delay_ms must be a number in 0.0...300000.0"),
        ("POST", "/rules", #"{"answer":{"status":200},"colour":"red"}"#, "rule: unknown field 'colour' (known: answer, delay_ms, match, times)"),
        (
            "POST", "/rules", #"{"match":{"payload":{"pointer":"aps"}},"answer":{"status":200}}"#,
            "rule.match.payload.pointer 'aps' is not a JSON pointer (RFC 6901), e.g. /aps/alert/title"
        ),
        ("POST", "/rules", #"{"match":{"token":5},"answer":{"status":200}}"#, "rule.match.token must be a string"),
        ("PATCH", "/knobs", #"{"rate_429":0.7,"rate_503":0.7}"#, "knobs: rate_429 + rate_500 + rate_503 must not exceed 1"),
        ("PATCH", "/knobs", #"{"rate_429":2}"#, "knobs.rate_429 must be a number in 0.0...1.0"),
        ("PATCH", "/knobs", #"{"goaway_after":0}"#, "knobs.goaway_after must be a whole number in 1...9223372036854775807"),
        ("PATCH", "/knobs", #"{"max_streams":null}"#, "knobs.max_streams cannot be null"),
        ("PATCH", "/knobs", #"{"latency_ms":5,"jitter_ms":5}"#, "knobs: give latency_ms or jitter_ms, not both"),
        ("PATCH", "/knobs", #"{"unique_ids":"no"}"#, "knobs.unique_ids must be true or false"),
        (
            "PATCH", "/knobs", #"{"rate_503":1,"speed":"fast"}"#,
            "knobs: unknown field 'speed' (known: close_after, close_every, goaway_after, goaway_reason, jitter_ms, latency_ms, max_streams, rate_429, rate_500, rate_503, unique_ids)"
        ),
        ("PATCH", "/knobs", #"{"goaway_reason":"Sleepy"}"#, "knobs.goaway_reason: 'Sleepy' is not a reason APNs documents"),
        ("POST", "/goaway", #"{"reason":"Sleepy"}"#, "goaway.reason: 'Sleepy' is not a reason APNs documents"),
        ("GET", "/records?colour=red", nil, "unknown query parameter 'colour' (known: channel_id, token, topic)"),
        ("GET", "/records/wait?timeout_ms=10", nil, "count must be a whole number of at least 1"),
        ("GET", "/records/wait?count=0", nil, "count must be a whole number of at least 1"),
        ("GET", "/records/wait?count=1&timeout_ms=999999999", nil, "timeout_ms must be a whole number in 0...300000"),
        ("GET", "/rules/abc", nil, "a rule id is a whole number, got 'abc'"),
    ]

    @Test("bad control requests get 400 with a JSON error and change nothing", arguments: 0..<badRequests.count)
    func badRequest(_ index: Int) async throws {
        let (method, path, body, message) = Self.badRequests[index]
        try await withControl { fixture, control in
            _ = try await control.addRule(["match": ["token": .string(tokenB)], "answer": ["reason": "BadTopic"]])
            let before = try await (control.send("GET", "/rules").body, control.send("GET", "/knobs").body)
            let response = try await control.send(method, path, body: body)
            #expect(response.status == 400)
            #expect(response.contentType == "application/json")
            #expect(response.errorCode == "bad_request")
            #expect(response.json?["error"]?["message"]?.stringValue == message, "\(method) \(path) \(body ?? "")")
            let after = try await (control.send("GET", "/rules").body, control.send("GET", "/knobs").body)
            #expect(before.0 == after.0 && before.1 == after.1)
            #expect(fixture.server.counters().goAwaysSent == 0)
        }
    }

    @Test("unknown routes get 404 and known routes with another method 405, both as JSON errors")
    func notFoundAndMethod() async throws {
        try await withControl { _, control in
            let missing = try await control.send("GET", "/nothing")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
            let method = try await control.send("PUT", "/knobs", body: "{}")
            #expect(method.status == 405 && method.errorCode == "method_not_allowed")
            #expect(try await control.send("DELETE", "/rules/99").status == 404)
        }
    }
}
