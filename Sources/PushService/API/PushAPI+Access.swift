import PushHTTP
import PushHTTP1

extension PushAPI {
    /// What access control decided for one request.
    enum Admission {
        /// Answer with this response (401, 403, 404, 405 or 429) under the metrics route name.
        case answer(HTTPResponse, route: String)
        /// Run the route with its parameters (as captured, and as their rules read them), as this key (nil on
        /// an open route).
        case run(APIRoute, [String: String], [String: PathValue], APIKey?)
    }

    /// Routing, authentication, scope and the request rate limit, in that order of concern: a route that
    /// needs a key (every `/v1` path, even an unknown one, and `/metrics` or `/healthz` when protected)
    /// answers 401 without a valid key before anything about it is revealed, then 403 outside the key's
    /// scopes, then 429 over its request rate, then 400 for a malformed path parameter.
    func admit(_ request: HTTPServerRequest, router: APIRouter) -> Admission {
        let match = router.match(method: request.method, path: request.path)
        let needsKey: Bool
        if case .found(let route, _) = match {
            needsKey = route.scope != nil
        } else {
            // Bytes, not characters (as every other prefix check here): `hasPrefix` compares characters, and
            // "/v1/" followed by a combining mark is no character prefix. Request targets arrive
            // percent-encoded, so this never mattered over HTTP; the check stays right for any caller.
            let path = request.path.utf8
            needsKey = path.elementsEqual("/v1".utf8) || path.starts(with: "/v1/".utf8)
        }
        var key: APIKey?
        if needsKey {
            guard let found = authenticator.authenticate(request.header("Authorization")) else {
                recordAuthFailure(request)
                let error = APIError(
                    status: 401, code: "unauthorized",
                    message: "a valid API key is required (Authorization: Bearer <key>)")
                return .answer(error.response, route: "unauthorized")
            }
            key = found
        }
        switch match {
        case .notFound:
            return .answer(
                APIError.notFound("not_found", "no route for \(request.method) \(request.path.prefix(200))").response,
                route: "unmatched")
        case .methodNotAllowed(let allowed):
            var error = APIError(status: 405, code: "method_not_allowed", message: "allowed: \(allowed.joined(separator: ", "))").response
            error.headers.append(("Allow", allowed.joined(separator: ", ")))
            return .answer(error, route: "unmatched")
        case .found(let route, let parameters):
            guard let key else { return .run(route, parameters, [:], nil) }
            if let scope = route.scope, !key.scopes.contains(scope) {
                let error = APIError(
                    status: 403, code: "forbidden",
                    message: "API key \(key.name) lacks the \(scope.rawValue) scope this route needs")
                return .answer(error.response, route: route.operation)
            }
            if case .limited(let after) = limiter.takeRequest(key) {
                metrics.recordRateLimited(key: key.name, limit: "requests")
                let error = APIError.rateLimited("API key \(key.name) is over its request rate", retryAfter: after)
                return .answer(error.response, route: route.operation)
            }
            switch route.parse(parameters) {
            case .success(let values): return .run(route, parameters, values, key)
            case .failure(let error): return .answer(error.response, route: route.operation)
            }
        }
    }

    /// Takes `count` notifications from the request key's notification bucket, or throws 429 (or 400 when
    /// `count` is more than the bucket can ever hold).
    func admitNotifications(_ count: Int, key: APIKey?) throws(APIError) {
        guard let key else { return }
        switch limiter.takeNotifications(count, for: key) {
        case .allowed:
            return
        case .limited(let after):
            metrics.recordRateLimited(key: key.name, limit: "notifications")
            throw .rateLimited("API key \(key.name) is over its notification rate", retryAfter: after)
        case .exceedsBurst(let burst):
            metrics.recordRateLimited(key: key.name, limit: "notifications")
            throw .badRequest(
                "exceeds_rate_burst",
                "\(count) notifications in one push exceed API key \(key.name)'s burst of \(Int(burst)); split the push")
        }
    }

    /// Counts a failed authentication and logs it with the client address, never the presented value;
    /// at most a few lines a minute, with the number held back. `credential` says what was wrong (default:
    /// the `Authorization` header missing or invalid).
    func recordAuthFailure(_ request: HTTPServerRequest, credential: String? = nil) {
        metrics.recordAuthFailure()
        let (write, suppressed) = authFailureLog.admit()
        guard write else { return }
        var fields = [
            ("client", request.remoteAddress), ("method", request.method),
            ("path", String(request.path.prefix(100))),
            ("credential", credential ?? (request.header("Authorization") == nil ? "missing" : "invalid")),
        ]
        if suppressed > 0 { fields.append(("suppressed_since_last", "\(suppressed)")) }
        logger.warning("http.auth_failed", fields)
    }
}
