import Foundation
import JSON
import PushHTTP
import PushHTTP1

extension PushConsole {
    /// The values the send form shows (what was posted, after a refusal).
    struct SendFields: Sendable {
        var target = "user"
        var user = ""
        var token = ""
        var topic = ""
        var title = "Test push"
        var body = "Sent from the push-server console"
        var pushType = "alert"
        var priority = "10"
        var environment = ""
    }

    /// `GET /console/send`: the test push form (`?user=` fills the user).
    func sendForm(_ visitor: ConsoleVisitor, _ request: HTTPServerRequest) async throws -> ConsolePage {
        var fields = SendFields()
        if let user = request.queryValue("user") { fields.user = user }
        return sendPage(visitor, fields, error: nil, status: 200)
    }

    /// `POST /console/send`: the push goes through `POST /v1/pushes`' own handler as the signed-in key (its
    /// checks, notification rate and outbox), then the push's page shows its outcome as it arrives.
    func send(_ visitor: ConsoleVisitor, _ form: ConsoleForm) async throws -> HTTPResponse {
        var fields = SendFields()
        fields.target = form.value("target") == "token" ? "token" : "user"
        fields.user = form.text("user") ?? ""
        fields.token = form.text("token") ?? ""
        fields.topic = form.text("topic") ?? ""
        fields.title = form.text("title") ?? ""
        fields.body = form.text("body") ?? ""
        fields.pushType = form.text("push_type") ?? "alert"
        fields.priority = form.text("priority") ?? ""
        fields.environment = form.text("environment") ?? ""

        var json: [String: JSONValue] = ["push_type": .string(fields.pushType)]
        if fields.target == "token" {
            json["tokens"] = [.string(fields.token)]
            if !fields.topic.isEmpty { json["topic"] = .string(fields.topic) }
        } else {
            json["user_id"] = .string(fields.user)
        }
        if fields.pushType == "background" {
            json["content_available"] = true
        } else {
            var alert: [String: JSONValue] = [:]
            if !fields.title.isEmpty { alert["title"] = .string(fields.title) }
            if !fields.body.isEmpty { alert["body"] = .string(fields.body) }
            json["alert"] = .object(alert)
        }
        if let priority = Int(fields.priority) { json["priority"] = .int(Int64(priority)) }
        if !fields.environment.isEmpty { json["environment"] = .string(fields.environment) }

        let request = APIRequest(
            http: HTTPServerRequest(
                method: "POST", path: "/v1/pushes", headers: [("Content-Type", "application/json")],
                body: JSONValue.object(json).serialized()),
            key: visitor.key)
        let response: HTTPResponse
        do {
            response = try await api.createPush(request)
        } catch {
            // Refusals come back on the form, as the REST API gives them (a full disk: 503 storage_full with
            // Retry-After); anything else is the console's 500 page.
            guard let refusal = PushAPI.apiError(known: error) else { throw error }
            var page = sendPage(visitor, fields, error: "\(refusal.code): \(refusal.message)", status: refusal.status).response
            if let seconds = refusal.retryAfterSeconds { page.headers.append(("Retry-After", "\(seconds)")) }
            return page
        }
        guard let pushID = (try? JSONValue.parse(response.body))?["push_id"]?.stringValue else {
            return sendPage(visitor, fields, error: "the push was not accepted (status \(response.status))", status: 500).response
        }
        api.logger.info("console.test_push", [("key", visitor.key.name), ("push_id", pushID)])
        return Self.redirect("/console/pushes/\(HTML.urlComponent(pushID))")
    }

    func sendPage(_ visitor: ConsoleVisitor, _ fields: SendFields, error: String?, status: Int) -> ConsolePage {
        func option(_ value: String, _ label: String, _ selected: String) -> String {
            "<option value=\"\(HTML.escape(value))\"\(value == selected ? " selected" : "")>\(HTML.escape(label))</option>"
        }
        func checked(_ value: String) -> String { fields.target == value ? " checked" : "" }
        let topics = api.senders.apps.flatMap { app in app.topics.map { ($0, "\($0) (\(app.name))") } }
        var body = ""
        if let error { body += "<p class=\"error\" id=\"message\">\(HTML.escape(error))</p>\n" }
        if !visitor.key.scopes.contains(.send) {
            body += "<p class=\"note\">API key \(HTML.escape(visitor.key.name)) has no send scope: sending will be refused.</p>\n"
        }
        body += """
            <form class="box" method="post" action="/console/send" id="send-form">\(visitor.csrfField)
            <label><input type="radio" name="target" value="user"\(checked("user"))> to user
            <input name="user" id="send-user" value="\(HTML.escape(fields.user))"></label>
            <label><input type="radio" name="target" value="token" id="target-token"\(checked("token"))> to token
            <input name="token" id="send-token" size="64" value="\(HTML.escape(fields.token))"></label>
            <label>Topic (for a token) <select name="topic" id="send-topic">\(option("", "default", fields.topic))\
            \(topics.map { option($0.0, $0.1, fields.topic) }.joined())</select></label>
            <label>Title <input name="title" id="send-title" value="\(HTML.escape(fields.title))"></label>
            <label>Body <input name="body" id="send-body" size="50" value="\(HTML.escape(fields.body))"></label>
            <label>Push type <select name="push_type" id="send-push-type">\(option("alert", "alert", fields.pushType))\
            \(option("background", "background", fields.pushType))</select></label>
            <label>Priority <select name="priority" id="send-priority">\(option("10", "10 (immediately)", fields.priority))\
            \(option("5", "5 (power-saving)", fields.priority))\(option("1", "1 (lowest)", fields.priority))</select></label>
            <label>Environment <select name="environment" id="send-environment">\(option("", "as registered", fields.environment))\
            \(option("development", "development", fields.environment))\(option("production", "production", fields.environment))</select></label>
            <button type="submit" id="send">Send</button>
            </form>
            """
        var page = ConsolePage(title: "Send a test push", body: body, status: status)
        page.visitor = visitor
        page.showsMock = mock.view != nil
        return page
    }
}
