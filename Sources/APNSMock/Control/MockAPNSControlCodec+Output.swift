import APNSCore
import Foundation
import JSON

extension MockAPNSControlCodec {
    /// A rule as the API shows it.
    static func json(_ status: MockAPNSRuleStatus) -> JSONValue {
        let rule = status.rule
        var match: [String: JSONValue] = [:]
        if let token = rule.match.token { match["token"] = .string(token) }
        if let topic = rule.match.topic { match["topic"] = .string(topic) }
        if let pushType = rule.match.pushType { match["push_type"] = .string(pushType) }
        if let pointer = rule.match.payloadPointer {
            var payload: [String: JSONValue] = ["pointer": .string(pointer)]
            if let equals = rule.match.payloadEquals { payload["equals"] = equals }
            match["payload"] = .object(payload)
        }
        var answer: [String: JSONValue]
        switch rule.answer {
        case .accept:
            answer = ["status": 200]
        case .reject(let code, let reason, let timestamp):
            answer = ["status": .int(Int64(code)), "reason": .string(reason.rawValue)]
            if let timestamp { answer["timestamp_ms"] = .int(milliseconds(timestamp)) }
        }
        return [
            "id": .int(Int64(status.id)),
            "match": .object(match),
            "answer": .object(answer),
            "delay_ms": rule.delay.map { .double($0 / .milliseconds(1)) } ?? .null,
            "times": rule.times.map { .int(Int64($0)) } ?? .null,
            "matched": .int(Int64(status.matched)),
            "remaining": status.remaining.map { .int(Int64($0)) } ?? .null,
        ]
    }

    /// A record as the API shows it: the request exactly as received (payload as UTF-8 text when it is
    /// valid UTF-8, and always as base64) and the answer given.
    static func json(_ record: MockAPNSRecord) -> JSONValue {
        var answer: [String: JSONValue] = ["apns_id": .string(record.apnsID)]
        switch record.outcome {
        case .accepted(_, let uniqueID):
            answer["status"] = 200
            answer["apns_unique_id"] = uniqueID.map(JSONValue.string) ?? .null
        case .rejected(let rejection):
            answer["status"] = .int(Int64(rejection.status))
            answer["reason"] = .string(rejection.reason.rawValue)
            answer["timestamp_ms"] = rejection.timestamp.map { .int(milliseconds($0)) } ?? .null
        }
        return [
            "token": .string(record.token),
            "topic": record.topic.map(JSONValue.string) ?? .null,
            "channel_id": record.channelID.map(JSONValue.string) ?? .null,
            "headers": .array(record.headers.map { ["name": .string($0.name), "value": .string($0.value)] }),
            "payload": String(validating: record.payload, as: UTF8.self).map(JSONValue.string) ?? .null,
            "payload_base64": .string(Data(record.payload).base64EncodedString()),
            "client_certificate_uid": record.clientCertificateUID.map(JSONValue.string) ?? .null,
            "client_certificate_fingerprint": record.clientCertificateFingerprint.map(JSONValue.string) ?? .null,
            "connection": .int(Int64(record.connectionID)),
            "stream": .int(Int64(record.streamID)),
            "time_ms": .int(milliseconds(record.time)),
            "answer": .object(answer),
        ]
    }

    /// `{"count": n, "records": [...]}`.
    static func json(_ records: [MockAPNSRecord]) -> JSONValue {
        ["count": .int(Int64(records.count)), "records": .array(records.map { json($0) })]
    }

    /// The counters as the API shows them.
    static func json(_ counters: MockAPNSCounters) -> JSONValue {
        let reasons = Dictionary(
            counters.rejectedByReason.map { ($0.key.rawValue, JSONValue.int(Int64($0.value))) },
            uniquingKeysWith: { first, _ in first })
        return [
            "accepted": .int(Int64(counters.accepted)),
            "rejected": .int(Int64(counters.rejected)),
            "rejected_by_reason": .object(reasons),
            "streams": .int(Int64(counters.streams)),
            "connections": .int(Int64(counters.connections)),
            "open_connections": .int(Int64(counters.openConnections)),
            "goaways_sent": .int(Int64(counters.goAwaysSent)),
            "aborts": .int(Int64(counters.aborts)),
            "max_concurrent_streams_seen": .int(Int64(counters.maxObservedConcurrentStreams)),
        ]
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
