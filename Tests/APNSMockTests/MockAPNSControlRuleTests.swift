import APNSCore
import APNSMock
import Foundation
import JSON
import PushHTTP
import PushHTTP2
import Testing

@Suite("Mock control API: rules by token, topic, push type and payload pointer; counts, delays")
struct MockAPNSControlRuleTests {
    @Test("a token rule answers 410 Unregistered with its timestamp; other tokens follow Apple's rules")
    func tokenRule() async throws {
        try await withControl { fixture, control in
            let id = try await control.addRule([
                "match": ["token": .string(tokenA.uppercased())],
                "answer": ["reason": "Unregistered", "timestamp_ms": 1_700_000_000_123],
            ])
            let connection = try fixture.connection()
            let rejected = try await respond(connection, apnsRequest(token: tokenA))
            #expect(rejected.status == 410)
            #expect(text(rejected.body) == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
            #expect(try await respond(connection, apnsRequest(token: tokenB)).status == 200)
            let rule = try await control.send("GET", "/rules/\(id)")
            #expect(rule.json?["matched"]?.intValue == 1)
            #expect(rule.json?["answer"]?["status"]?.intValue == 410)
        }
    }

    @Test("a topic rule and a push-type rule each answer only what they match")
    func topicAndPushTypeRules() async throws {
        try await withControl { fixture, control in
            _ = try await control.addRule(["match": ["topic": .string(bundleID + ".voip")], "answer": ["reason": "TopicDisallowed"]])
            _ = try await control.addRule(["match": ["push_type": "background"], "answer": ["status": 503, "reason": "Shutdown"]])
            let connection = try fixture.connection()
            let voip = try await respond(connection, apnsRequest(topic: bundleID + ".voip", pushType: "voip"))
            #expect(voip.status == 400 && reason(voip) == "TopicDisallowed")
            let background = try await respond(
                connection,
                apnsRequest(
                    pushType: "background",
                    extraHeaders: [("apns-priority", "5")]))
            #expect(background.status == 503 && reason(background) == "Shutdown")
            #expect(try await respond(connection, apnsRequest()).status == 200)
        }
    }

    @Test("a payload pointer rule matches a value, or any value when no 'equals' is given")
    func payloadPointerRules() async throws {
        try await withControl { fixture, control in
            _ = try await control.addRule([
                "match": ["payload": ["pointer": "/aps/alert/title", "equals": "boom"]],
                "answer": ["reason": "PayloadTooLarge"],
            ])
            _ = try await control.addRule(["match": ["payload": ["pointer": "/data/a~1b/0"]], "answer": ["reason": "BadDeviceToken"]])
            let connection = try fixture.connection()
            let boom = try await respond(connection, apnsRequest(body: Array(#"{"aps":{"alert":{"title":"boom"}}}"#.utf8)))
            #expect(boom.status == 413 && reason(boom) == "PayloadTooLarge")
            let calm = try await respond(connection, apnsRequest(body: Array(#"{"aps":{"alert":{"title":"calm"}}}"#.utf8)))
            #expect(calm.status == 200)
            let escaped = try await respond(connection, apnsRequest(body: Array(#"{"aps":{},"data":{"a/b":[false]}}"#.utf8)))
            #expect(escaped.status == 400 && reason(escaped) == "BadDeviceToken")
            #expect(try await respond(connection, apnsRequest(body: Array(#"{"aps":{},"data":{"a/b":[]}}"#.utf8))).status == 200)
        }
    }

    @Test("a rule with times answers that many requests, then stops matching; status 200 accepts")
    func counts() async throws {
        try await withControl(configure: { $0.faultRates = MockFaultRates(serviceUnavailable: 1) }) { fixture, control in
            let id = try await control.addRule(["match": ["token": .string(tokenA)], "answer": ["reason": "TooManyRequests"], "times": 2])
            _ = try await control.addRule(["match": ["token": .string(tokenB)], "answer": ["status": 200]])
            let connection = try fixture.connection()
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await respond(connection, apnsRequest(token: tokenA)).status) }
            #expect(statuses == [429, 429, 503])
            #expect(try await respond(connection, apnsRequest(token: tokenB)).status == 200)
            let rule = try await control.send("GET", "/rules/\(id)").json
            #expect(rule?["matched"]?.intValue == 2)
            #expect(rule?["remaining"]?.intValue == 0)
        }
    }

    @Test("a rule's delay holds the answer back at least that long; others answer at once")
    func delay() async throws {
        try await withControl { fixture, control in
            _ = try await control.addRule(["match": ["token": .string(tokenA)], "answer": ["status": 200], "delay_ms": 300])
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest(token: tokenB)).status == 200)
            let clock = ContinuousClock()
            let started = clock.now
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 200)
            #expect(clock.now - started >= .milliseconds(300))
        }
    }

    @Test("removing a rule and clearing all rules restore the default answers")
    func removeAndClear() async throws {
        try await withControl { fixture, control in
            let first = try await control.addRule(["match": ["token": .string(tokenA)], "answer": ["reason": "BadTopic"]])
            _ = try await control.addRule(["match": ["token": .string(tokenB)], "answer": ["reason": "BadTopic"]])
            #expect(try await control.send("DELETE", "/rules/\(first)").status == 204)
            #expect(try await control.send("DELETE", "/rules/\(first)").status == 404)
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest(token: tokenA)).status == 200)
            #expect(try await respond(connection, apnsRequest(token: tokenB)).status == 400)
            #expect(try await control.send("DELETE", "/rules").status == 204)
            #expect(try await control.send("GET", "/rules").json?["rules"]?.arrayValue?.isEmpty == true)
            #expect(try await respond(connection, apnsRequest(token: tokenB)).status == 200)
        }
    }

    @Test("concurrent tests, each with its own token and rule, see only their own answers and records")
    func concurrentTestsByToken() async throws {
        let reasons = [
            "BadDeviceToken", "Unregistered", "TooManyRequests", "ExpiredToken", "BadTopic", "Shutdown",
            "InternalServerError", "PayloadTooLarge",
        ]
        try await withControl { fixture, control in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, reasonText) in reasons.enumerated() {
                    group.addTask {
                        let token = String(format: "%064x", index + 1)
                        _ = try await control.addRule(["match": ["token": .string(token)], "answer": ["reason": .string(reasonText)], "times": 2])
                        let connection = try fixture.connection()
                        let first = try await respond(connection, apnsRequest(token: token))
                        let second = try await respond(connection, apnsRequest(token: token))
                        let third = try await respond(connection, apnsRequest(token: token))
                        #expect(reason(first) == reasonText && reason(second) == reasonText && third.status == 200)
                        let waited = try await control.send("GET", "/records/wait?count=3&timeout_ms=10000&token=\(token)")
                        let records = waited.json?["records"]?.arrayValue ?? []
                        #expect(waited.status == 200 && records.count == 3)
                        #expect(records.map(answerReason) == [reasonText, reasonText, nil])
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await control.records().count == reasons.count * 3)
        }
    }
}
