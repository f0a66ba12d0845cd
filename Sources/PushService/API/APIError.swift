import APNSCore
public import JSON
public import PushHTTP
import PushHTTP1

/// An error answered as `{"error":{"code":"...","message":"..."}}` with an HTTP status.
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// A stable machine-readable code, e.g. `invalid_field`.
    public var code: String
    /// A human-readable explanation (never contains secrets).
    public var message: String
    /// Seconds after which a retry can succeed, sent as `Retry-After` (429).
    public var retryAfterSeconds: Int?

    /// Creates an error.
    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// 429 `rate_limited`, retrying after `delay` (rounded up to whole seconds, at least 1).
    public static func rateLimited(_ message: String, retryAfter delay: Duration) -> APIError {
        APIError(
            status: 429, code: "rate_limited", message: message,
            retryAfterSeconds: max(1, Int((delay / .seconds(1)).rounded(.up))))
    }

    /// 400 with `code`.
    public static func badRequest(_ code: String, _ message: String) -> APIError {
        APIError(status: 400, code: code, message: message)
    }

    /// 400 `invalid_field` naming the field.
    public static func invalidField(_ field: String, _ why: String) -> APIError {
        APIError(status: 400, code: "invalid_field", message: "\(field): \(why)")
    }

    /// 404 with `code`.
    public static func notFound(_ code: String, _ message: String) -> APIError {
        APIError(status: 404, code: code, message: message)
    }

    /// The JSON response for this error.
    public var response: HTTPResponse {
        let body: JSONValue = ["error": ["code": .string(code), "message": .string(message)]]
        var response = HTTPResponse.json(status: status, body)
        if status == 401 { response.headers.append(("WWW-Authenticate", "Bearer")) }
        if let retryAfterSeconds { response.headers.append(("Retry-After", "\(retryAfterSeconds)")) }
        return response
    }
}

extension HTTPResponse {
    /// A JSON response with `value` serialized as the body.
    public static func json(status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: value.serialized())
    }

    /// A JSON response whose body is already serialized.
    static func jsonBytes(status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// A response with no body (e.g. 204).
    public static func empty(status: Int) -> HTTPResponse {
        HTTPResponse(status: status)
    }
}
