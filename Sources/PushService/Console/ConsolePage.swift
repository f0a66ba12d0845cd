import PushHTTP

/// One console page: its title, body (HTML the page functions build, every value escaped), optional
/// script, and the headers every console answer carries (a Content-Security-Policy that admits only this
/// answer's own style and script by nonce).
struct ConsolePage: Sendable {
    /// The `<title>` and `<h1>`.
    var title: String
    /// The body's HTML (already escaped).
    var body: String
    /// The status code.
    var status = 200
    /// The signed-in visitor, for the navigation and the sign-out form; nil on the sign-in page.
    var visitor: ConsoleVisitor?
    /// Whether the navigation links the mock's page (embedded mode).
    var showsMock = false
    /// A constant script run on the page (live updates only), or nil.
    var script: String?
    /// Extra headers (cookies).
    var headers: [(name: String, value: String)] = []

    /// The Content-Security-Policy of an answer whose style and script carry `nonce`.
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'; img-src data:; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// Headers every console answer carries besides the policy.
    static let fixedHeaders: [(name: String, value: String)] = [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
    ]

    /// The page as an HTTP answer with a fresh nonce.
    var response: HTTPResponse {
        let nonce = ConsoleSessionSigner.randomHex(bytes: 16)
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="icon" href="data:,">
            <title>\(HTML.escape(title)) · push-server console</title>
            <style nonce="\(nonce)">\(Self.style)</style>
            </head><body>
            """
        html += navigation
        html += "<main><h1>\(HTML.escape(title))</h1>\n\(body)</main>"
        if let script { html += "<script nonce=\"\(nonce)\">\(script)</script>" }
        html += "</body></html>\n"
        var headers = Self.fixedHeaders
        headers.append(("Content-Security-Policy", Self.contentSecurityPolicy(nonce: nonce)))
        headers += self.headers
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }

    private var navigation: String {
        guard let visitor else { return "<header><strong>push-server</strong> console</header>\n" }
        var links = [("/console", "Overview"), ("/console/users", "Users"), ("/console/send", "Send a test push"), ("/console/channels", "Channels")]
        links.append(("/console/webhooks", "Webhooks"))
        if showsMock { links.append(("/console/mock", "Mock APNs")) }
        let items = links.map { "<a href=\"\($0.0)\">\(HTML.escape($0.1))</a>" }.joined(separator: " ")
        return """
            <header><strong>push-server</strong> console <nav>\(items)</nav>
            <form class="signout" method="post" action="/console/signout">\(visitor.csrfField)
            <span id="signed-in">\(HTML.escape(visitor.key.name)) (\(HTML.escape(visitor.key.scopes.sorted().map(\.rawValue).joined(separator: ", "))))</span>
            <button type="submit" id="sign-out">Sign out</button></form></header>

            """
    }

    static let style = """
        body{font-family:system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
        header{background:#1d2330;color:#fff;padding:.6em 1em;display:flex;gap:1em;align-items:center;flex-wrap:wrap}
        header a{color:#cfe0ff;margin-right:.8em}header .signout{margin-left:auto}
        main{padding:1em 1.5em;max-width:80em}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}
        table{border-collapse:collapse;background:#fff;margin:.4em 0}td,th{border:1px solid #d5d9e0;padding:.3em .6em;text-align:left;vertical-align:top}
        th{background:#eef0f4}code{font-size:.9em;word-break:break-all}
        .ok,.accepted,.active{color:#11703a}.bad,.rejected,.failed,.unreachable,.invalidated,.expired{color:#b3261e}
        .note{color:#5b6474;font-size:.9em}.error{background:#fde8e6;border:1px solid #b3261e;padding:.6em;margin:.6em 0}
        form.box{background:#fff;border:1px solid #d5d9e0;padding:1em;max-width:36em}
        label{display:block;margin:.4em 0}input,select{font:inherit;padding:.2em}
        .card{background:#fff;border:1px solid #d5d9e0;padding:.6em 1em;max-width:36em}
        """
}

/// Who is signed in: the session, the key it names (as configured now) and the session's CSRF token.
struct ConsoleVisitor: Sendable {
    var session: ConsoleSession
    var key: APIKey
    var csrf: String

    /// The hidden field every form of the session carries.
    var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">" }
}
