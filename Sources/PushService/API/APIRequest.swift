import APNSCore
public import PushHTTP1

/// A routed request: the HTTP request plus the path parameters its route captured.
public struct APIRequest: Sendable {
    /// The request as read from the connection.
    public var http: HTTPServerRequest
    /// Path parameters by name, percent-decoded (e.g. `id`).
    public var parameters: [String: String]
    /// The API key the request was authenticated with (nil on open routes).
    public var key: APIKey?

    /// Creates a routed request.
    public init(http: HTTPServerRequest, parameters: [String: String] = [:], key: APIKey? = nil) {
        self.http = http
        self.parameters = parameters
        self.key = key
    }

    /// The path parameter `name` (routes guarantee the ones they declare).
    public func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// The body as a JSON object, or a 400 `APIError`.
    public func jsonBody() throws(APIError) -> JSONFields {
        try JSONFields.parse(body: http.body)
    }

    /// A boolean query flag, `true` or `false` as the OpenAPI document says; throws 400 for any other value.
    public func queryFlag(_ name: String) throws(APIError) -> Bool {
        guard let value = http.queryValue(name) else { return false }
        switch value {
        case "true": return true
        case "false": return false
        default: throw .badRequest("invalid_query", "\(name) must be true or false")
        }
    }
}
