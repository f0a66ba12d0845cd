import Foundation
import JSON
import PushHTTP
import PushHTTP1
import Testing

@testable import PushService

/// A browser-like visitor of the console, in process: keeps the cookies the console sets.
final class ConsoleVisit: @unchecked Sendable {
    let console: PushConsole
    var cookies: [String: String] = [:]

    init(_ server: PushServer) {
        console = server.console
    }

    func request(_ method: String, _ path: String, form: [(String, String)]? = nil) async -> HTTPResponse {
        let parts = path.split(separator: "?", maxSplits: 1)
        let query = parts.count > 1 ? FormURLEncoding.pairs(parts[1].utf8) : []
        var headers: [(name: String, value: String)] = []
        if !cookies.isEmpty { headers.append(("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))) }
        let body =
            form.map { fields in
                Array(fields.map { "\($0.0)=\(HTML.urlComponent($0.1))" }.joined(separator: "&").utf8)
            } ?? []
        let response = await console.handle(
            HTTPServerRequest(method: method, path: String(parts[0]), query: query, headers: headers, body: body, remoteAddress: "127.0.0.1:1"))
        for (name, value) in response.headers where name == "Set-Cookie" {
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let cookieValue = pair.count > 1 ? String(pair[1]) : ""
            cookies[String(pair[0])] = cookieValue.isEmpty ? nil : cookieValue
        }
        return response
    }

    /// The value of the first hidden `csrf` field of `response`'s page.
    static func csrf(_ response: HTTPResponse) -> String? {
        let text = String(decoding: response.body, as: UTF8.self)
        guard let range = text.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in with `key`; returns the answer to the sign-in POST.
    @discardableResult
    func signIn(_ key: String) async -> HTTPResponse {
        let page = await request("GET", "/console/signin")
        return await request("POST", "/console/signin", form: [("csrf", Self.csrf(page) ?? ""), ("key", key)])
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

@Suite("console access: sessions, CSRF, scopes, policy")
struct ConsoleAccessTests {
    static let readerKey = "reader-key-0123456789"
    static let secret = "console-secret-for-tests-0123456789"

    static func start() async throws -> ServiceHarness {
        try await ServiceHarness.start { configuration in
            configuration.apiKeys.append(try! APIKey(name: "reader", secret: readerKey, scopes: [.read]))
            configuration.consoleSessionSecret = secret
        }
    }

    @Test("without a session every page sends the visitor to sign in; a wrong key is refused and counted")
    func signInRequired() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let visit = ConsoleVisit(harness.server)
        for path in ["/console", "/console/users/alice", "/console/send", "/console/webhooks"] {
            let response = await visit.request("GET", path)
            #expect(response.status == 303, "\(path)")
            #expect(response.header("Location") == "/console/signin")
        }
        #expect(Self.authFailures(harness) == 0)
        let refused = await visit.signIn("not-a-key")
        #expect(refused.status == 401)
        #expect(refused.text.contains("A valid API key is required."))
        #expect(visit.cookies[PushConsole.cookieName] == nil)
        #expect(Self.authFailures(harness) == 1)
        // A sign-in without the form's own token is refused before the key is looked at.
        let forged = await ConsoleVisit(harness.server).request("POST", "/console/signin", form: [("key", ServiceHarness.apiKey)])
        #expect(forged.status == 403)
    }

    @Test("signed in, pages answer with the strict policy, nonce'd style, HttpOnly SameSite=Strict cookie")
    func policy() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let visit = ConsoleVisit(harness.server)
        let signedIn = await visit.signIn(ServiceHarness.apiKey)
        #expect(signedIn.status == 303)
        let cookie = try #require(signedIn.headers.first { $0.name == "Set-Cookie" && $0.value.hasPrefix("push_console=") }?.value)
        #expect(cookie.contains("; HttpOnly"))
        #expect(cookie.contains("; SameSite=Strict"))
        #expect(cookie.contains("; Path=/console"))
        #expect(!cookie.contains("Secure"))
        #expect(!cookie.contains(ServiceHarness.apiKey))
        let page = await visit.request("GET", "/console")
        #expect(page.status == 200)
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.hasPrefix("default-src 'none'; style-src 'nonce-"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(policy.contains("form-action 'self'"))
        #expect(!policy.contains("unsafe"))
        let nonce = String(policy.split(separator: "'nonce-")[1].prefix { $0 != "'" })
        #expect(page.text.contains("<style nonce=\"\(nonce)\">"))
        #expect(!page.text.contains(" style=\""))
        #expect(page.header("X-Frame-Options") == "DENY")
        #expect(!page.text.contains(ServiceHarness.apiKey))
        // Another answer, another nonce.
        let again = await visit.request("GET", "/console")
        #expect(again.header("Content-Security-Policy") != policy)
    }

    @Test("a POST without the session's CSRF token, or with another session's, is refused and sends nothing")
    func csrfRefusal() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        try await harness.addUser("alice")
        let visit = ConsoleVisit(harness.server)
        await visit.signIn(ServiceHarness.apiKey)
        let other = ConsoleVisit(harness.server)
        await other.signIn(ServiceHarness.apiKey)
        let otherToken = try #require(ConsoleVisit.csrf(await other.request("GET", "/console/send")))
        let fields = [("target", "user"), ("user", "alice"), ("title", "Hi"), ("body", "there")]
        let missing = await visit.request("POST", "/console/send", form: fields)
        #expect(missing.status == 403)
        #expect(missing.text.contains("CSRF token"))
        let foreign = await visit.request("POST", "/console/send", form: fields + [("csrf", otherToken)])
        #expect(foreign.status == 403)
        let signOut = await visit.request("POST", "/console/signout", form: [])
        #expect(signOut.status == 403)
        #expect(harness.server.metrics.pushCount(outcome: "accepted") == 0)
        #expect(harness.server.api.recentPushes.pushes(userID: "alice").isEmpty)
        let token = try #require(ConsoleVisit.csrf(await visit.request("GET", "/console/send")))
        let sent = await visit.request("POST", "/console/send", form: fields + [("csrf", token)])
        #expect(sent.status == 303, "\(sent.text)")
        #expect(sent.header("Location")?.hasPrefix("/console/pushes/") == true)
        #expect(harness.server.api.recentPushes.pushes(userID: "alice").count == 1)
    }

    @Test("a read-only key looks but may not send a test push nor see webhooks (403, as the REST API)")
    func scopes() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        try await harness.addUser("bob")
        let visit = ConsoleVisit(harness.server)
        await visit.signIn(Self.readerKey)
        #expect(await visit.request("GET", "/console").status == 200)
        #expect(await visit.request("GET", "/console/users/bob").status == 200)
        let form = await visit.request("GET", "/console/send")
        #expect(form.status == 200)
        let token = try #require(ConsoleVisit.csrf(form))
        let sent = await visit.request("POST", "/console/send", form: [("csrf", token), ("target", "user"), ("user", "bob"), ("title", "x")])
        #expect(sent.status == 403)
        #expect(sent.text.contains("lacks the send scope"))
        #expect(harness.server.api.recentPushes.pushes(userID: "bob").isEmpty)
        #expect(await visit.request("GET", "/console/webhooks").status == 403)
    }

    @Test("a session ends when a reload removes its key; a changed cookie is refused and counted")
    func keyRemovedByReload() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let visit = ConsoleVisit(harness.server)
        await visit.signIn(Self.readerKey)
        #expect(await visit.request("GET", "/console").status == 200)
        var configuration = PushServiceConfiguration()
        configuration.port = 0
        configuration.apiKeys = [try APIKey(name: "test", secret: ServiceHarness.apiKey)]
        configuration.consoleSessionSecret = Self.secret
        configuration.topic = ServiceHarness.topic
        let reloaded = configuration
        harness.server.setReloadSource { reloaded }
        await harness.server.reload()
        let after = await visit.request("GET", "/console")
        #expect(after.status == 401)
        #expect(after.text.contains("no longer configured"))
        #expect(visit.cookies[PushConsole.cookieName] == nil)

        let tampered = ConsoleVisit(harness.server)
        await tampered.signIn(ServiceHarness.apiKey)
        let cookie = try #require(tampered.cookies[PushConsole.cookieName])
        tampered.cookies[PushConsole.cookieName] =
            cookie.replacingOccurrences(of: "v1.", with: "v1.f", options: .anchored)
            .dropLast().description
        let failures = Self.authFailures(harness)
        let refused = await tampered.request("GET", "/console")
        #expect(refused.status == 401)
        #expect(Self.authFailures(harness) == failures + 1)
    }

    /// `http_auth_failures_total` now.
    static func authFailures(_ harness: ServiceHarness) -> Int {
        let text = harness.server.metrics.prometheusText(outboxCounts: [:], extra: "")
        let line = text.split(separator: "\n").first { $0.hasPrefix("http_auth_failures_total ") } ?? ""
        return Int(line.split(separator: " ").last ?? "") ?? -1
    }

    @Test("values from the store are escaped in pages")
    func escaping() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let put = try await harness.client.send(
            "PUT", "/v1/users/mallory", json: ["name": "<script>alert(1)</script>", "dog_name": "\"><img src=x>"])
        #expect(put.status == 201 || put.status == 200)
        let visit = ConsoleVisit(harness.server)
        await visit.signIn(ServiceHarness.apiKey)
        let page = await visit.request("GET", "/console/users/mallory")
        #expect(page.status == 200)
        #expect(!page.text.contains("<script>alert"))
        #expect(!page.text.contains("<img src=x>"))
        #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.text.contains("&quot;&gt;&lt;img src=x&gt;"))
        let missing = await visit.request("GET", "/console/users/%3Cb%3E")
        #expect(missing.status == 404)
        #expect(missing.text.contains("no user &lt;b&gt;"))
    }
}
