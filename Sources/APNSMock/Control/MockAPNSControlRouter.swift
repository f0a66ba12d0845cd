import APNSCore
import JSON
import PushHTTP
import PushHTTP1

/// Routes control requests to the mock. Immutable; `handle` runs on the control loop and answers at
/// once, except a long poll, which answers from a task when its records arrive or its time is up.
final class MockAPNSControlRouter: Sendable {
    private let mock: MockAPNSServer

    init(mock: MockAPNSServer) {
        self.mock = mock
    }

    /// Answers one control request.
    func handle(_ request: HTTPServerRequest, responder: HTTPResponder) {
        let path = request.path.count > 1 && request.path.hasSuffix("/") ? String(request.path.dropLast()) : request.path
        do {
            if path == "/records/wait", request.method == "GET" {
                try startWait(request, responder: responder)
                return
            }
            let (status, body) = try route(method: request.method, path: path, request: request)
            responder.respond(Self.response(status, body))
        } catch {
            responder.respond(Self.response(error.status, error.json))
        }
    }

    private func route(method: String, path: String, request: HTTPServerRequest) throws(MockAPNSControlError)
        -> (Int, JSONValue?)
    {
        let segments = path.split(separator: "/").map(String.init)
        let resource = segments.first ?? ""
        let id = segments.count == 2 ? segments[1] : nil
        switch (method, resource, segments.count) {
        case ("GET", "rules", 1):
            return (200, ["rules": .array(mock.rules().map { MockAPNSControlCodec.json($0) })])
        case ("POST", "rules", 1):
            let rule = try MockAPNSControlCodec.rule(from: request.body)
            let id = mock.addRule(rule)
            return (201, mock.rules().first { $0.id == id }.map { MockAPNSControlCodec.json($0) })
        case ("DELETE", "rules", 1):
            mock.clearRules()
            return (204, nil)
        case ("GET", "rules", 2):
            let id = try Self.ruleID(id ?? "")
            guard let status = mock.rules().first(where: { $0.id == id }) else { throw .notFound("no rule \(id)") }
            return (200, MockAPNSControlCodec.json(status))
        case ("DELETE", "rules", 2):
            let id = try Self.ruleID(id ?? "")
            guard mock.removeRule(id: id) else { throw .notFound("no rule \(id)") }
            return (204, nil)
        case ("GET", "records", 1):
            let filter = try Self.filter(request, extra: [])
            return (200, MockAPNSControlCodec.json(mock.records(matching: filter)))
        case ("DELETE", "records", 1):
            mock.reset()
            return (204, nil)
        case ("GET", "counters", 1):
            return (200, MockAPNSControlCodec.json(mock.counters()))
        case ("GET", "knobs", 1):
            return (200, MockAPNSControlCodec.json(mock.knobs))
        case ("PATCH", "knobs", 1):
            let updated = try MockAPNSControlCodec.knobs(patching: mock.knobs, with: request.body)
            return (200, MockAPNSControlCodec.json(mock.updateKnobs { $0 = updated }))
        case ("POST", "goaway", 1):
            let object = try MockAPNSControlObject(body: request.body, context: "goaway", emptyIsObject: true)
            try object.onlyFields(["reason"])
            let reason = try object.reason("reason") ?? .shutdown
            // Answered once the frames are queued on the mock's loop.
            return (200, ["connections": .int(Int64(mock.goAwayAll(reason: reason)))])
        case ("POST", "reset", 1):
            mock.resetAll()
            return (204, nil)
        default:
            if Self.routes.contains(segments.count == 2 && resource == "rules" ? "rules/{id}" : segments.joined(separator: "/")) {
                throw MockAPNSControlError(status: 405, code: "method_not_allowed", message: "\(method) is not allowed on \(path)")
            }
            throw .notFound("no route \(method) \(path); see docs/mock-control.yaml")
        }
    }

    /// Every path the API serves, for telling 405 from 404.
    private static let routes: Set<String> = [
        "rules", "rules/{id}", "records", "records/wait", "counters", "knobs",
        "goaway", "reset",
    ]

    /// `GET /records/wait?count=N&timeout_ms=T[&token=…][&topic=…][&channel_id=…]`: 200 with the records once N match,
    /// 408 when the time is up first.
    private func startWait(_ request: HTTPServerRequest, responder: HTTPResponder) throws(MockAPNSControlError) {
        let filter = try Self.filter(request, extra: ["count", "timeout_ms"])
        guard let countText = request.queryValue("count"), let count = Int(countText), count >= 1 else {
            throw .bad("count must be a whole number of at least 1")
        }
        var timeout = 5_000
        if let text = request.queryValue("timeout_ms") {
            guard let value = Int(text), (0...MockAPNSControlCodec.maxMillis).contains(value) else {
                throw .bad("timeout_ms must be a whole number in 0...\(MockAPNSControlCodec.maxMillis)")
            }
            timeout = value
        }
        let mock = self.mock
        Task {
            if let records = await mock.waitForRecords(count: count, matching: filter, timeout: .milliseconds(timeout)) {
                responder.respond(Self.response(200, MockAPNSControlCodec.json(records)))
                return
            }
            let have = mock.records(matching: filter).count
            let error = MockAPNSControlError(
                status: 408, code: "timeout",
                message: "\(have) of \(count) records after \(timeout) ms")
            var body = error.json
            if case .object(var members) = body {
                members["count"] = .int(Int64(have))
                body = .object(members)
            }
            responder.respond(Self.response(408, body))
        }
    }

    private static func ruleID(_ text: String) throws(MockAPNSControlError) -> Int {
        guard let id = Int(text), id > 0 else { throw .bad("a rule id is a whole number, got '\(text)'") }
        return id
    }

    private static func filter(_ request: HTTPServerRequest, extra: Set<String>) throws(MockAPNSControlError)
        -> MockAPNSRecordFilter
    {
        let known: Set<String> = extra.union(["token", "topic", "channel_id"])
        if let unknown = request.query.first(where: { !known.contains($0.name) }) {
            throw .bad("unknown query parameter '\(unknown.name)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        return MockAPNSRecordFilter(
            token: request.queryValue("token"), topic: request.queryValue("topic"), channelID: request.queryValue("channel_id"))
    }

    private static func response(_ status: Int, _ body: JSONValue?) -> HTTPResponse {
        guard let body else { return HTTPResponse(status: status) }
        var bytes = body.serialized()
        bytes.append(UInt8(ascii: "\n"))
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: bytes)
    }
}
