import APNSCore
import APNSMock
import Foundation
import JSON
import PushHTTP2

#if canImport(FoundationNetworking)
import FoundationNetworking
import PushHTTP
#endif

/// A JSON client for the mock's control API over real HTTP (URLSession).
struct ControlClient: Sendable {
    let baseURL: String
    private let session: URLSession

    init(url: String) {
        baseURL = url
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    struct Response: Sendable {
        var status: Int
        var body: [UInt8]
        var contentType: String?
        var json: JSONValue? { try? JSONValue.parse(body) }
        var errorCode: String? { json?["error"]?["code"]?.stringValue }
    }

    /// Sends `method path` with `body` (raw text) and returns status and body.
    func send(_ method: String, _ path: String, body: String? = nil) async throws -> Response {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return Response(
            status: http.statusCode, body: Array(data),
            contentType: http.value(forHTTPHeaderField: "Content-Type"))
    }

    /// Sends `json` as the body.
    func send(_ method: String, _ path: String, json: JSONValue) async throws -> Response {
        try await send(method, path, body: String(decoding: json.serialized(), as: UTF8.self))
    }

    /// Adds a rule and returns its id.
    func addRule(_ rule: JSONValue) async throws -> Int {
        let response = try await send("POST", "/rules", json: rule)
        guard response.status == 201, let id = response.json?["id"]?.intValue else {
            throw ControlFailure(response: response)
        }
        return id
    }

    /// The records, optionally for one token.
    func records(token: String? = nil) async throws -> [JSONValue] {
        let response = try await send("GET", "/records" + (token.map { "?token=\($0)" } ?? ""))
        return response.json?["records"]?.arrayValue ?? []
    }
}

/// A control request that did not get the expected answer.
struct ControlFailure: Error, CustomStringConvertible {
    let response: ControlClient.Response
    var description: String { "\(response.status) \(String(decoding: response.body, as: UTF8.self))" }
}

/// Runs `body` with a fresh mock fixture and its control API; stops both afterwards.
func withControl<T: Sendable>(
    configure: (inout MockAPNSServer.Configuration) -> Void = { _ in },
    _ body: (MockFixture, ControlClient) async throws -> T
) async throws -> T {
    try await withFixture(configure: configure) { fixture in
        let control = try fixture.server.startControlServer()
        defer { control.stop() }
        return try await body(fixture, ControlClient(url: control.url))
    }
}

/// The `answer.status` of a record.
func answerStatus(_ record: JSONValue) -> Int? {
    record["answer"]?["status"]?.intValue
}

/// The `answer.reason` of a record.
func answerReason(_ record: JSONValue) -> String? {
    record["answer"]?["reason"]?.stringValue
}

/// The reason in an APNs error body.
func reason(_ response: HTTPResponse) -> String? {
    (try? JSONValue.parse(response.body))?["reason"]?.stringValue
}
