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

    static let badRequests: [(method: String, path: String, body: String?)] = [
        ("POST", "/rules", "{not json"),
        ("POST", "/rules", "[]"),
        ("POST", "/rules", #"{"match":{"token":"ab"}}"#),
        ("POST", "/rules", #"{"answer":{"reason":"NoSuchReason"}}"#),
        ("POST", "/rules", #"{"answer":{"status":200,"reason":"BadTopic"}}"#),
        ("POST", "/rules", #"{"answer":{"status":302,"reason":"BadTopic"}}"#),
        ("POST", "/rules", #"{"answer":{"reason":"BadTopic","timestamp_ms":5}}"#),
        ("POST", "/rules", #"{"answer":{"status":200},"times":0}"#),
        ("POST", "/rules", #"{"answer":{"status":200},"delay_ms":-1}"#),
        ("POST", "/rules", #"{"answer":{"status":200},"colour":"red"}"#),
        ("POST", "/rules", #"{"match":{"payload":{"pointer":"aps"}},"answer":{"status":200}}"#),
        ("POST", "/rules", #"{"match":{"token":5},"answer":{"status":200}}"#),
        ("PATCH", "/knobs", #"{"rate_429":0.7,"rate_503":0.7}"#),
        ("PATCH", "/knobs", #"{"rate_429":2}"#),
        ("PATCH", "/knobs", #"{"goaway_after":0}"#),
        ("PATCH", "/knobs", #"{"max_streams":null}"#),
        ("PATCH", "/knobs", #"{"latency_ms":5,"jitter_ms":5}"#),
        ("PATCH", "/knobs", #"{"rate_503":1,"speed":"fast"}"#),
        ("PATCH", "/knobs", #"{"goaway_reason":"Sleepy"}"#),
        ("POST", "/goaway", #"{"reason":"Sleepy"}"#),
        ("GET", "/records?colour=red", nil),
        ("GET", "/records/wait?timeout_ms=10", nil),
        ("GET", "/records/wait?count=0", nil),
        ("GET", "/records/wait?count=1&timeout_ms=999999999", nil),
        ("GET", "/rules/abc", nil),
    ]

    @Test("bad control requests get 400 with a JSON error and change nothing", arguments: 0..<badRequests.count)
    func badRequest(_ index: Int) async throws {
        let (method, path, body) = Self.badRequests[index]
        try await withControl { fixture, control in
            _ = try await control.addRule(["match": ["token": .string(tokenB)], "answer": ["reason": "BadTopic"]])
            let before = try await (control.send("GET", "/rules").body, control.send("GET", "/knobs").body)
            let response = try await control.send(method, path, body: body)
            #expect(response.status == 400)
            #expect(response.contentType == "application/json")
            #expect(response.errorCode == "bad_request")
            #expect(response.json?["error"]?["message"]?.stringValue?.isEmpty == false)
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
