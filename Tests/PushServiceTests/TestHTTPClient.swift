import APNSCore
import Foundation
import JSON

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small JSON-over-HTTP client for the service under test.
struct TestHTTPClient: Sendable {
    let baseURL: String
    let apiKey: String?
    private let session: URLSession

    init(port: Int, apiKey: String?) {
        baseURL = "http://127.0.0.1:\(port)"
        self.apiKey = apiKey
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    /// The same client with another key (nil: no Authorization header).
    func with(apiKey: String?) -> TestHTTPClient {
        TestHTTPClient(port: Int(baseURL.split(separator: ":").last!)!, apiKey: apiKey)
    }

    struct Response: Sendable {
        var status: Int
        var body: [UInt8]
        var contentType: String?
        var headers: [String: String] = [:]
        var json: JSONValue? { try? JSONValue.parse(body) }
        var errorCode: String? { json?["error"]?["code"]?.stringValue }
        var errorMessage: String? { json?["error"]?["message"]?.stringValue }
        /// The body as text, for failure messages.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func send(_ method: String, _ path: String, body: String? = nil) async throws -> Response {
        try await send(method, path, bytes: body.map { Array($0.utf8) })
    }

    func send(_ method: String, _ path: String, json: JSONValue, headers: [String: String] = [:]) async throws -> Response {
        try await send(method, path, bytes: json.serialized(), headers: headers)
    }

    func send(_ method: String, _ path: String, bytes: [UInt8]?, headers: [String: String] = [:]) async throws -> Response {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        if let bytes {
            request.httpBody = Data(bytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Response(
            status: http.statusCode, body: Array(data),
            contentType: http.value(forHTTPHeaderField: "Content-Type"), headers: headers)
    }
}
