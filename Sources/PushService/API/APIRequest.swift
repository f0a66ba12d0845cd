public import APNSCore
public import PushHTTP1

/// A routed request: the HTTP request plus the path parameters its route captured.
public struct APIRequest: Sendable {
    /// The request as read from the connection.
    public var http: HTTPServerRequest
    /// Path parameters by name, percent-decoded (e.g. `id`).
    public var parameters: [String: String]
    /// Path parameters by name as their route's rules read them (`PathParameter`), once, by the router.
    public var values: [String: PathValue]
    /// The API key the request was authenticated with (nil on open routes).
    public var key: APIKey?

    /// Creates a routed request.
    public init(http: HTTPServerRequest, parameters: [String: String] = [:], values: [String: PathValue] = [:], key: APIKey? = nil) {
        self.http = http
        self.parameters = parameters
        self.values = values
        self.key = key
    }

    /// The path parameter `name` (routes guarantee the ones they declare).
    public func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// The device token the path parameter `name` holds, as the router parsed it (a route declares it
    /// `PathParameter.deviceToken`); 400 `invalid_path` when the route did not.
    public func deviceToken(_ name: String) throws(APIError) -> DeviceToken {
        guard case .deviceToken(let token) = values[name] else { throw .badRequest("invalid_path", "\(name) is not a device token") }
        return token
    }

    /// The channel id the path parameter `name` holds, as the router parsed it (a route declares it
    /// `PathParameter.channelID`); 400 `invalid_path` when the route did not.
    public func channelID(_ name: String) throws(APIError) -> APNSChannelID {
        guard case .channelID(let id) = values[name] else { throw .badRequest("invalid_path", "\(name) is not a channel id") }
        return id
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
