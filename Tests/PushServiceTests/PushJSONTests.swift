import APNSCore
import Foundation
import JSON
import PushStore
import TestSupport
import Testing

@testable import PushService

@Suite("push answers written straight to bytes")
struct PushJSONTests {
    static func rows() -> [OutboxItem] {
        let now = Date(timeIntervalSince1970: 1_780_000_000.123)
        var first = OutboxItem(
            id: "row-1", pushID: "push-\"1\"", token: DeviceToken(stringLiteral: String(repeating: "ab", count: 32)),
            topic: "com.example.app", pushType: "alert", payload: Array("{}".utf8),
            environment: "development", apnsID: APNSID(rawValue: "2F8D3B55-61A4-4A0B-9D2C-6C9B2A8F0E11"), now: now)
        first.state = .accepted
        first.attempts = 1
        first.lastStatus = 200
        first.apnsUniqueID = "unique\n\\id"
        var second = OutboxItem(
            id: "row-2", pushID: "push-\"1\"", token: DeviceToken(stringLiteral: String(repeating: "cd", count: 32)),
            topic: "com.example.app", pushType: "alert", payload: Array("{}".utf8),
            environment: "production", now: now.addingTimeInterval(0.001))
        second.state = .queued
        var third = second
        third.id = "row-3"
        third.state = .rejected
        third.lastStatus = 410
        third.lastReason = .rejected(.unregistered)
        third.attempts = 12
        third.updatedAt = Date(timeIntervalSince1970: -1.5)
        return [first, second, third]
    }

    @Test("GET /v1/pushes/{id} bytes equal the JSONValue tree's serialization")
    func pushMatchesTree() throws {
        for rows in [Self.rows(), [], Array(Self.rows().prefix(1))] {
            var counts: [String: JSONValue] = [:]
            for row in rows { counts[row.state.rawValue] = .int((counts[row.state.rawValue]?.int64Value ?? 0) + 1) }
            let tree: JSONValue = [
                "push_id": .string("push-\"1\""), "complete": .bool(rows.allSatisfy { $0.state.isTerminal }),
                "counts": .object(counts), "notifications": .array(rows.map(RecordJSON.notification)),
            ]
            #expect(PushJSON.push(pushID: "push-\"1\"", rows: rows) == tree.serialized())
        }
    }

    @Test("the 202 answer of POST /v1/pushes equals the JSONValue tree's serialization")
    func acceptedMatchesTree() {
        let rows = Self.rows()
        let tree: JSONValue = [
            "push_id": .string("p"),
            "notifications": .array(
                rows.map {
                    .object(["id": .string($0.id), "token": .string($0.target.deviceToken?.hex ?? "")])
                }),
        ]
        #expect(PushJSON.accepted(pushID: "p", items: rows) == tree.serialized())
    }

    @Test("times are ISO 8601 UTC with the stored milliseconds")
    func times() {
        #expect(TimeText.iso8601(Date(timeIntervalSince1970: 1_780_000_000.001)) == "2026-05-28T20:26:40.001Z")
        #expect(TimeText.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(TimeText.iso8601(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(TimeText.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(TimeText.iso8601(Date(timeIntervalSince1970: 4_102_444_799.999)) == "2099-12-31T23:59:59.999Z")
        // Whole seconds agree with Foundation's formatter.
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for seconds in stride(from: -86_400 * 800, to: 86_400 * 40_000, by: 86_400 * 37 + 3_601) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(TimeText.iso8601(date) == style.format(date))
        }
    }

    @Test("JSON strings: plain ones copied, special characters escaped")
    func strings() {
        var out: [UInt8] = []
        JSONValue.writeString("plain-ünï", to: &out)
        JSONValue.writeString("q\"b\\n\n\u{1}", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "\"plain-ünï\"\"q\\\"b\\\\n\\n\\u0001\"")
    }
}
