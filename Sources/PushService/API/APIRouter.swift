public import PushHTTP
import PushHTTP1

/// One operation of the API: a method and a path pattern such as `/v1/users/{id}`.
public struct APIRoute: Sendable {
    /// Handles a routed request.
    public typealias Handler = @Sendable (APIRequest) async throws -> HTTPResponse

    /// The HTTP method.
    public let method: String
    /// The path pattern; `{name}` segments capture one path segment.
    public let pattern: String
    /// The scope a key needs for this route; nil for a route open without a key.
    public let scope: APIScope?
    /// What each `{name}` path parameter must look like.
    public let parameters: [String: PathParameter]
    /// Whether the route honours `Idempotency-Key` (POSTs that create something).
    public let idempotent: Bool
    /// The pattern split into segments.
    let segments: [Substring]
    /// The code that answers it.
    let handler: Handler

    /// Creates a route that needs `scope` (nil: open without a key), with a rule for each path parameter.
    public init(
        _ method: String, _ pattern: String, scope: APIScope?, parameters: [String: PathParameter] = [:],
        idempotent: Bool = false, handler: @escaping Handler
    ) {
        self.method = method
        self.pattern = pattern
        self.scope = scope
        self.parameters = parameters
        self.idempotent = idempotent
        self.segments = pattern.split(separator: "/")
        self.handler = handler
    }

    /// `"GET /v1/users/{id}"`: how the OpenAPI document names the same operation.
    public var operation: String { "\(method) \(pattern)" }

    /// The captured parameters read by their rules, or a 400 `invalid_path` for the first one (by name) that
    /// breaks its rule.
    func parse(_ captured: [String: String]) -> Result<[String: PathValue], APIError> {
        var values: [String: PathValue] = [:]
        for (name, rule) in parameters.sorted(by: { $0.key < $1.key }) {
            guard let text = captured[name] else { continue }
            guard let value = rule.parse(text) else {
                return .failure(.badRequest("invalid_path", "\(name) \(rule.problem(text) ?? "is malformed")"))
            }
            values[name] = value
        }
        return .success(values)
    }

    func match(_ pathSegments: [Substring]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, actual) in zip(segments, pathSegments) {
            if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                let decoded = HTTPPath.decode(actual)
                guard !decoded.isEmpty else { return nil }
                parameters[String(pattern.dropFirst().dropLast())] = decoded
            } else if pattern != actual {
                return nil
            }
        }
        return parameters
    }
}

/// Finds the route for a method and path.
public struct APIRouter: Sendable {
    /// Every route, in registration order.
    public let routes: [APIRoute]

    /// A router over `routes`.
    public init(routes: [APIRoute]) {
        self.routes = routes
    }

    /// What a lookup found.
    public enum Match: Sendable {
        /// A route and its captured parameters.
        case found(APIRoute, [String: String])
        /// The path exists with other methods (405).
        case methodNotAllowed([String])
        /// No route has this path (404).
        case notFound
    }

    /// Looks up `method` and `path`. A path that a pattern names literally is that pattern's alone:
    /// `/v1/channels/apple` is not also `/v1/channels/{id}`, so its 405 lists only its own methods.
    public func match(method: String, path: String) -> Match {
        let segments = path.split(separator: "/")
        var candidates: [(route: APIRoute, parameters: [String: String])] = []
        for route in routes {
            guard let parameters = route.match(segments) else { continue }
            candidates.append((route, parameters))
        }
        let fewestParameters = candidates.map(\.parameters.count).min() ?? 0
        let specific = candidates.filter { $0.parameters.count == fewestParameters }
        if let found = specific.first(where: { $0.route.method == method }) { return .found(found.route, found.parameters) }
        let allowed = specific.map(\.route.method)
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    /// Every operation as `"METHOD /pattern"`.
    public var operations: Set<String> { Set(routes.map(\.operation)) }
}

/// Percent-decoding of path segments.
enum HTTPPath {
    static func decode(_ segment: Substring) -> String {
        guard segment.contains("%") else { return String(segment) }
        var bytes: [UInt8] = []
        var rest = Array(segment.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2,
                let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
