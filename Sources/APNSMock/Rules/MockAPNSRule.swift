public import APNSCore
public import Foundation
public import JSON

/// A programmed answer for the requests it matches: the control API's rules, also usable in process
/// (`MockAPNSServer.addRule(_:)`). Rules are tried in the order they were added, before the programmable
/// handler and Apple's rules; the first one that matches and has answers left decides.
public struct MockAPNSRule: Sendable, Hashable {
    /// What a request must show for the rule to apply; every criterion given must hold (nil: any).
    public struct Match: Sendable, Hashable {
        /// The device token (compared case-insensitively).
        public var token: String?
        /// The `apns-topic` header.
        public var topic: String?
        /// The `apns-push-type` header.
        public var pushType: String?
        /// A JSON pointer (RFC 6901) into the payload, e.g. `/aps/alert/title`: the payload must be JSON
        /// and the pointer must lead to a value (equal to `payloadEquals`, when that is given).
        public var payloadPointer: String?
        /// The value the pointer must lead to; nil: any value.
        public var payloadEquals: JSONValue?

        /// A match with the given criteria; none given matches every request.
        public init(
            token: String? = nil, topic: String? = nil, pushType: String? = nil,
            payloadPointer: String? = nil, payloadEquals: JSONValue? = nil
        ) {
            self.token = token
            self.topic = topic
            self.pushType = pushType
            self.payloadPointer = payloadPointer
            self.payloadEquals = payloadEquals
        }

        /// Whether `request` meets every criterion.
        public func matches(_ request: MockAPNSRequest) -> Bool {
            if let token, request.token?.lowercased() != token.lowercased() { return false }
            if let topic, request.topic != topic { return false }
            if let pushType, request.header(APNSHeader.pushType) != pushType { return false }
            if let payloadPointer {
                guard let document = try? JSONValue.parse(request.payload),
                    let found = MockJSONPointer.resolve(payloadPointer, in: document)
                else { return false }
                if let payloadEquals, !MockJSONPointer.sameValue(found, payloadEquals) { return false }
            }
            return true
        }
    }

    /// The answer a rule gives.
    public enum Answer: Sendable, Hashable {
        /// 200 with an `apns-id`.
        case accept
        /// An error status with `{"reason": …}`, and `timestamp` (410 only) in the body.
        case reject(status: Int, reason: APNSRejectionReason, timestamp: Date?)

        /// Rejects with Apple's status for `reason`.
        public static func reject(_ reason: APNSRejectionReason, timestamp: Date? = nil) -> Answer {
            .reject(status: reason.status ?? 400, reason: reason, timestamp: timestamp)
        }
    }

    /// Which requests it answers.
    public var match: Match
    /// What it answers.
    public var answer: Answer
    /// How long to wait before answering (instead of the latency knob); nil follows the knob.
    public var delay: Duration?
    /// How many requests it answers before it stops matching; nil: every one.
    public var times: Int?

    /// A rule from its parts.
    public init(match: Match = Match(), answer: Answer, delay: Duration? = nil, times: Int? = nil) {
        self.match = match
        self.answer = answer
        self.delay = delay
        self.times = times
    }
}

/// A rule as the server holds it: its id and how often it answered so far.
public struct MockAPNSRuleStatus: Sendable, Hashable {
    /// The id `addRule` returned (1, 2, …; never reused by one server).
    public let id: Int
    /// The rule as added.
    public let rule: MockAPNSRule
    /// Requests it answered.
    public let matched: Int

    /// Answers left before it stops matching; nil: unlimited.
    public var remaining: Int? {
        rule.times.map { max(0, $0 - matched) }
    }
}

/// RFC 6901 JSON pointers.
enum MockJSONPointer {
    /// Whether `pointer` is well formed: empty, or `/`-separated tokens using only `~0` and `~1` escapes.
    static func isValid(_ pointer: String) -> Bool {
        tokens(pointer) != nil
    }

    /// The value `pointer` leads to in `document`, or nil.
    static func resolve(_ pointer: String, in document: JSONValue) -> JSONValue? {
        guard let tokens = tokens(pointer) else { return nil }
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(token), index >= 0, index < items.count,
                    token == "0" || !token.hasPrefix("0")
                else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// JSON equality where numbers compare by value (`1` equals `1.0`).
    static func sameValue(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.int, .double), (.double, .int): lhs.doubleValue == rhs.doubleValue
        case (.array(let left), .array(let right)):
            left.count == right.count && zip(left, right).allSatisfy { sameValue($0, $1) }
        case (.object(let left), .object(let right)):
            left.count == right.count && left.allSatisfy { key, value in right[key].map { sameValue(value, $0) } ?? false }
        default: lhs == rhs
        }
    }

    private static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        var result: [String] = []
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let character = iterator.next() {
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: return nil
                }
            }
            result.append(token)
        }
        return result
    }
}
