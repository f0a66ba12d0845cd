import Foundation
import PushHTTP
import PushHTTP1
import PushStore

/// The web console at `/console` on the API's listener: server-rendered pages over the same store, senders
/// and metrics as the REST API, signed in with an API key held in a signed session cookie.
///
/// Access follows the REST API's rules: a page needs the `read` scope, sending a test push `send`, the
/// webhooks page `admin`; each request takes from the key's request rate; failed sign-ins and refused
/// session cookies count as failed authentications. Every form carries the session's CSRF token.
struct PushConsole: Sendable {
    /// The REST API whose store, senders, metrics and handlers the pages use.
    let api: PushAPI
    /// Signs and checks session cookies and CSRF tokens.
    let signer: ConsoleSessionSigner
    /// Outcome totals sampled over the last minutes (the overview's chart).
    let history: ConsoleOutcomeHistory
    /// What the embedded mock APNs received (embedded mode only).
    let mock: ConsoleMockBox
    /// Whether the listener serves TLS (cookies are then `Secure`).
    let secure: Bool

    /// The session cookie's name.
    static let cookieName = "push_console"
    /// The sign-in form's double-submit cookie.
    static let signInCookieName = "push_console_signin"

    /// Whether `path` is the console's.
    static func owns(_ path: String) -> Bool {
        let bytes = path.utf8
        return bytes.elementsEqual("/console".utf8) || bytes.starts(with: "/console/".utf8)
    }

    /// Answers one console request, with the REST API's request metrics and log line.
    func handle(_ request: HTTPServerRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        let (route, response) = await answer(request)
        api.metrics.recordRequest(route: route, status: response.status)
        api.logger.info(
            "http.request",
            [
                ("method", request.method), ("route", route), ("status", "\(response.status)"),
                ("duration_ms", ServiceLogger.milliseconds(ContinuousClock.now - started)),
            ])
        return response
    }

    private func answer(_ request: HTTPServerRequest) async -> (String, HTTPResponse) {
        let segments = request.path.split(separator: "/").dropFirst().map { HTTPPath.decode($0) }
        let method = request.method
        switch (method, segments.first ?? "", segments.count) {
        case ("GET", "", 0): return ("GET /console", await page(request, scope: .read) { try await self.overview($0) })
        case ("GET", "signin", 1): return ("GET /console/signin", signInPage(message: nil, status: 200).response)
        case ("POST", "signin", 1): return ("POST /console/signin", signIn(request))
        case ("POST", "signout", 1): return ("POST /console/signout", await form(request, scope: nil) { _, _ in self.signOut() })
        case ("GET", "users", 1): return ("GET /console/users", await page(request, scope: .read) { try await self.userSearch($0, request) })
        case ("GET", "users", 2):
            return ("GET /console/users/{id}", await page(request, scope: .read) { try await self.user($0, id: segments[1]) })
        case ("GET", "pushes", 2):
            return ("GET /console/pushes/{id}", await page(request, scope: .read) { try await self.push($0, id: segments[1]) })
        case ("GET", "send", 1): return ("GET /console/send", await page(request, scope: .read) { try await self.sendForm($0, request) })
        case ("POST", "send", 1): return ("POST /console/send", await form(request, scope: .send) { try await self.send($0, $1) })
        case ("GET", "channels", 1): return ("GET /console/channels", await page(request, scope: .read) { try await self.channels($0) })
        case ("GET", "webhooks", 1): return ("GET /console/webhooks", await page(request, scope: .admin) { try await self.webhooks($0) })
        case ("GET", "mock", 1): return ("GET /console/mock", await page(request, scope: .read) { try await self.mockPage($0) })
        default:
            return ("unmatched", message(status: 404, title: "Not found", text: "The console has no page at this address."))
        }
    }

    // MARK: Access

    /// What admission decided.
    enum Admission {
        case visitor(ConsoleVisitor)
        case refused(HTTPResponse)
    }

    /// The visitor of `request` when its session is valid, its key holds `scope` and is within its request
    /// rate; otherwise the answer: sign-in for a missing or refused session, 403 outside the scope, 429.
    func admit(_ request: HTTPServerRequest, scope: APIScope?) -> Admission {
        guard let cookie = Self.cookie(Self.cookieName, in: request) else {
            return .refused(request.method == "GET" ? Self.redirect("/console/signin") : signInPage(message: "Sign in first.", status: 401).response)
        }
        let visitor: ConsoleVisitor
        switch signer.verify(cookie, keys: api.authenticator.keys, now: Date()) {
        case .failure(let refusal):
            api.recordAuthFailure(request, credential: "console_session_\(refusal)")
            var page = signInPage(message: Self.text(refusal), status: 401)
            page.headers.append(("Set-Cookie", clearedCookie(Self.cookieName, path: "/console")))
            return .refused(page.response)
        case .success(let (session, key)):
            visitor = ConsoleVisitor(session: session, key: key, csrf: signer.csrfToken(for: session))
        }
        if let scope, !visitor.key.scopes.contains(scope) {
            let text = "API key \(visitor.key.name) lacks the \(scope.rawValue) scope this page needs."
            return .refused(message(status: 403, title: "Not allowed", text: text, visitor: visitor))
        }
        if case .limited(let after) = api.limiter.takeRequest(visitor.key) {
            api.metrics.recordRateLimited(key: visitor.key.name, limit: "requests")
            var page = pageValue(
                status: 429, title: "Too many requests", text: "API key \(visitor.key.name) is over its request rate.", visitor: visitor)
            page.headers.append(("Retry-After", "\(max(1, Int((after / .seconds(1)).rounded(.up))))"))
            return .refused(page.response)
        }
        return .visitor(visitor)
    }

    /// A GET page for a visitor holding `scope`; store errors become an error page.
    func page(_ request: HTTPServerRequest, scope: APIScope, _ render: (ConsoleVisitor) async throws -> ConsolePage) async -> HTTPResponse {
        switch admit(request, scope: scope) {
        case .refused(let response): return response
        case .visitor(let visitor): return await rendered(visitor) { try await render(visitor) }
        }
    }

    /// A POST from a form: the session, its CSRF token (403 without the right one), then `scope`.
    func form(
        _ request: HTTPServerRequest, scope: APIScope?, _ handle: (ConsoleVisitor, ConsoleForm) async throws -> HTTPResponse
    ) async -> HTTPResponse {
        let admission = admit(request, scope: nil)
        guard case .visitor(let visitor) = admission else {
            if case .refused(let response) = admission { return response }
            return message(status: 500, title: "Error", text: "internal error")
        }
        let fields = ConsoleForm(body: request.body)
        guard signer.checkCSRF(fields.value("csrf"), session: visitor.session) else {
            return message(
                status: 403, title: "Form refused", text: "The form's CSRF token is missing or wrong; reload the page and try again.",
                visitor: visitor)
        }
        if let scope, !visitor.key.scopes.contains(scope) {
            return message(
                status: 403, title: "Not allowed", text: "API key \(visitor.key.name) lacks the \(scope.rawValue) scope this needs.", visitor: visitor
            )
        }
        do {
            return try await handle(visitor, fields)
        } catch {
            return failure(error, visitor: visitor)
        }
    }

    private func rendered(_ visitor: ConsoleVisitor, _ render: () async throws -> ConsolePage) async -> HTTPResponse {
        do {
            var page = try await render()
            page.visitor = visitor
            page.showsMock = mock.view != nil
            return page.response
        } catch {
            return failure(error, visitor: visitor)
        }
    }

    /// An error thrown by a page or form as a page: API, store and match errors as the REST API answers
    /// them (`PushAPI.apiError(known:)`: status, code, message and `Retry-After`), anything else 500 (and
    /// logged).
    func failure(_ error: any Error, visitor: ConsoleVisitor) -> HTTPResponse {
        guard let apiError = PushAPI.apiError(known: error) else {
            api.logger.error("console.internal_error", [("error", "\(error)")])
            return message(status: 500, title: "Error", text: "internal: internal error", visitor: visitor)
        }
        var response = message(status: apiError.status, title: "Error", text: "\(apiError.code): \(apiError.message)", visitor: visitor)
        if let seconds = apiError.retryAfterSeconds { response.headers.append(("Retry-After", "\(seconds)")) }
        return response
    }

    // MARK: Sign-in

    /// The sign-in page with a fresh double-submit token (cookie and hidden field).
    func signInPage(message: String?, status: Int) -> ConsolePage {
        let token = ConsoleSessionSigner.randomHex(bytes: 16)
        var body = ""
        if let message { body += "<p class=\"error\" id=\"message\">\(HTML.escape(message))</p>\n" }
        body += """
            <form class="box" method="post" action="/console/signin">
            <input type="hidden" name="csrf" value="\(token)">
            <label>API key <input type="password" name="key" id="key" autocomplete="off" size="50"></label>
            <button type="submit" id="sign-in">Sign in</button>
            </form>
            <p class="note">The key is checked as the REST API checks <code>Authorization: Bearer</code>; the console then
            holds a signed session cookie naming the key, never the key itself.</p>
            """
        var page = ConsolePage(title: "Sign in", body: body, status: status)
        page.headers.append(("Set-Cookie", cookie(Self.signInCookieName, token, path: "/console/signin", maxAge: 3600)))
        return page
    }

    /// `POST /console/signin`: the key checked like a Bearer key (a wrong one counts as a failed
    /// authentication), then a session cookie and the overview.
    func signIn(_ request: HTTPServerRequest) -> HTTPResponse {
        let fields = ConsoleForm(body: request.body)
        guard let presented = fields.value("csrf"), let expected = Self.cookie(Self.signInCookieName, in: request),
            APIKeyAuthenticator.constantTimeEqual(Array(presented.utf8), Array(expected.utf8))
        else {
            return signInPage(message: "The sign-in form expired; try again.", status: 403).response
        }
        let key = fields.value("key") ?? ""
        guard let found = api.authenticator.authenticate("Bearer " + key) else {
            api.recordAuthFailure(request, credential: key.isEmpty ? "missing" : "invalid")
            return signInPage(message: "A valid API key is required.", status: 401).response
        }
        let (_, value) = signer.issue(for: found, now: Date())
        var response = Self.redirect("/console")
        response.headers.append(("Set-Cookie", cookie(Self.cookieName, value, path: "/console", maxAge: Int(signer.lifetime / .seconds(1)))))
        response.headers.append(("Set-Cookie", clearedCookie(Self.signInCookieName, path: "/console/signin")))
        api.logger.info("console.signed_in", [("client", request.remoteAddress), ("key", found.name)])
        return response
    }

    /// `POST /console/signout`: clears the cookie (the signed session itself lasts until it expires: keep
    /// the lifetime short, or remove the key to end every session at once).
    func signOut() -> HTTPResponse {
        var response = Self.redirect("/console/signin")
        response.headers.append(("Set-Cookie", clearedCookie(Self.cookieName, path: "/console")))
        return response
    }

    // MARK: Helpers

    func cookie(_ name: String, _ value: String, path: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    func clearedCookie(_ name: String, path: String) -> String {
        cookie(name, "", path: path, maxAge: 0)
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in request: HTTPServerRequest) -> String? {
        for (header, value) in request.headers where header.caseInsensitiveCompare("Cookie") == .orderedSame {
            for part in value.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                let found = pair[1].trimmingCharacters(in: .whitespaces)
                if !found.isEmpty { return found }
            }
        }
        return nil
    }

    static func redirect(_ location: String) -> HTTPResponse {
        var headers = ConsolePage.fixedHeaders
        headers.append(("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; form-action 'self'"))
        headers.append(("Location", location))
        return HTTPResponse(status: 303, headers: headers)
    }

    func pageValue(status: Int, title: String, text: String, visitor: ConsoleVisitor? = nil) -> ConsolePage {
        var page = ConsolePage(title: title, body: "<p class=\"error\" id=\"message\">\(HTML.escape(text))</p>", status: status)
        page.visitor = visitor
        page.showsMock = mock.view != nil
        return page
    }

    func message(status: Int, title: String, text: String, visitor: ConsoleVisitor? = nil) -> HTTPResponse {
        pageValue(status: status, title: title, text: text, visitor: visitor).response
    }

    static func text(_ refusal: ConsoleSessionRefusal) -> String {
        switch refusal {
        case .malformed, .badSignature: "The session is not valid here; sign in again."
        case .expired: "The session expired; sign in again."
        case .keyRemoved: "The session's API key is no longer configured; sign in with a current key."
        }
    }
}
