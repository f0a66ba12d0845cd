import APNSCore
import Foundation
import JSON

/// The control API's JSON shapes (see `docs/mock-control.yaml`): rules and knob changes in, rules,
/// knobs, records and counters out. Decoding checks everything before anything is changed.
enum MockAPNSControlCodec {
    /// Longest rule delay or wait the API takes, in milliseconds.
    static let maxMillis = 300_000

    /// A rule from `POST /rules`.
    static func rule(from body: [UInt8]) throws(MockAPNSControlError) -> MockAPNSRule {
        let object = try MockAPNSControlObject(body: body, context: "rule")
        try object.onlyFields(["match", "answer", "delay_ms", "times"])
        var match = MockAPNSRule.Match()
        if let matchObject = try object.object("match") {
            try matchObject.onlyFields(["token", "topic", "push_type", "payload"])
            match.token = try matchObject.string("token")
            match.topic = try matchObject.string("topic")
            match.pushType = try matchObject.string("push_type")
            if let payload = try matchObject.object("payload") {
                try payload.onlyFields(["pointer", "equals"])
                guard let pointer = try payload.string("pointer") else { throw .bad("rule.match.payload.pointer is required") }
                guard MockJSONPointer.isValid(pointer) else {
                    throw .bad("rule.match.payload.pointer '\(pointer)' is not a JSON pointer (RFC 6901), e.g. /aps/alert/title")
                }
                match.payloadPointer = pointer
                match.payloadEquals = payload.value("equals")
            }
        }
        guard let answerObject = try object.object("answer") else { throw .bad("rule.answer is required") }
        let answer = try self.answer(answerObject)
        let delay = try object.double("delay_ms", in: 0...Double(maxMillis)).map { Duration.milliseconds($0) }
        let times = try object.int("times", in: 1...Int.max)
        return MockAPNSRule(match: match, answer: answer, delay: delay, times: times)
    }

    private static func answer(_ object: MockAPNSControlObject) throws(MockAPNSControlError) -> MockAPNSRule.Answer {
        try object.onlyFields(["status", "reason", "timestamp_ms"])
        let status = try object.int("status", in: 200...599)
        let reason = try object.reason("reason", allowUnknown: status != nil)
        let timestamp = try object.int("timestamp_ms", in: 0...Int.max)
        switch (status, reason) {
        case (nil, nil):
            throw .bad("rule.answer needs a status (200 accepts) or a reason")
        case (200?, nil):
            if timestamp != nil { throw .bad("rule.answer.timestamp_ms goes with status 410 only") }
            return .accept
        case (200?, _?):
            throw .bad("rule.answer: status 200 takes no reason")
        case (let status?, nil):
            throw .bad("rule.answer: status \(status) needs a reason")
        case (let status, let reason?):
            let code = status ?? reason.status ?? 400
            guard (400...599).contains(code) else { throw .bad("rule.answer.status must be 200 or 400...599") }
            if timestamp != nil, code != 410 { throw .bad("rule.answer.timestamp_ms goes with status 410 only") }
            let date = timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            return .reject(status: code, reason: reason, timestamp: date)
        }
    }

    /// The knobs after applying a `PATCH /knobs` body to `current` (absent fields keep, null turns off).
    static func knobs(patching current: MockAPNSKnobs, with body: [UInt8]) throws(MockAPNSControlError) -> MockAPNSKnobs {
        let object = try MockAPNSControlObject(body: body, context: "knobs")
        try object.onlyFields([
            "goaway_after", "goaway_reason", "close_after", "close_every", "rate_429", "rate_500",
            "rate_503", "max_streams", "latency_ms", "jitter_ms", "unique_ids",
        ])
        var knobs = current
        if object.has("goaway_after") { knobs.goAwayAfterStreams = try object.int("goaway_after", in: 1...Int.max) }
        if object.isNull("goaway_reason") { knobs.goAwayReason = .shutdown }
        if let reason = try object.reason("goaway_reason") { knobs.goAwayReason = reason }
        if object.has("close_after") { knobs.abruptCloseAfterStreams = try object.int("close_after", in: 0...Int.max) }
        if object.has("close_every") { knobs.abruptCloseEveryStreams = try object.int("close_every", in: 1...Int.max) }
        if object.has("rate_429") { knobs.faultRates.tooManyRequests = try object.double("rate_429", in: 0...1) ?? 0 }
        if object.has("rate_500") { knobs.faultRates.internalServerError = try object.double("rate_500", in: 0...1) ?? 0 }
        if object.has("rate_503") { knobs.faultRates.serviceUnavailable = try object.double("rate_503", in: 0...1) ?? 0 }
        let rates = knobs.faultRates
        if rates.tooManyRequests + rates.internalServerError + rates.serviceUnavailable > 1 {
            throw .bad("knobs: rate_429 + rate_500 + rate_503 must not exceed 1")
        }
        if object.isNull("max_streams") { throw .bad("knobs.max_streams cannot be null") }
        if let streams = try object.int("max_streams", in: 1...Int(Int32.max)) { knobs.maxConcurrentStreams = streams }
        let latency = try object.double("latency_ms", in: 0...Double(maxMillis))
        let jitter = try object.double("jitter_ms", in: 0...Double(maxMillis))
        if latency != nil, jitter != nil { throw .bad("knobs: give latency_ms or jitter_ms, not both") }
        if let latency { knobs.latency = latency > 0 ? .fixed(.milliseconds(latency)) : .none }
        if let jitter { knobs.latency = jitter > 0 ? .jitter(min: .zero, max: .milliseconds(jitter)) : .none }
        if latency == nil, jitter == nil, object.isNull("latency_ms") || object.isNull("jitter_ms") { knobs.latency = .none }
        if object.isNull("unique_ids") { throw .bad("knobs.unique_ids cannot be null") }
        if let uniqueIDs = try object.bool("unique_ids") { knobs.sendsUniqueIDs = uniqueIDs }
        return knobs
    }

    /// `knobs` as the API shows them.
    static func json(_ knobs: MockAPNSKnobs) -> JSONValue {
        var latency: JSONValue = .null
        var jitter: JSONValue = .null
        switch knobs.latency {
        case .none: break
        case .fixed(let delay): latency = .double(delay / .milliseconds(1))
        case .jitter(_, let high): jitter = .double(high / .milliseconds(1))
        }
        return [
            "goaway_after": knobs.goAwayAfterStreams.map { .int(Int64($0)) } ?? .null,
            "goaway_reason": .string(knobs.goAwayReason.rawValue),
            "close_after": knobs.abruptCloseAfterStreams.map { .int(Int64($0)) } ?? .null,
            "close_every": knobs.abruptCloseEveryStreams.map { .int(Int64($0)) } ?? .null,
            "rate_429": .double(knobs.faultRates.tooManyRequests),
            "rate_500": .double(knobs.faultRates.internalServerError),
            "rate_503": .double(knobs.faultRates.serviceUnavailable),
            "max_streams": .int(Int64(knobs.maxConcurrentStreams)),
            "latency_ms": latency,
            "jitter_ms": jitter,
            "unique_ids": .bool(knobs.sendsUniqueIDs),
        ]
    }
}
