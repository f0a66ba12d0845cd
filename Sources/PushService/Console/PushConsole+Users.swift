import APNSCore
import Foundation
import ProfileDrop
import PushHTTP1
import PushStore

extension PushConsole {
    /// `GET /console/users`: a search form; `?id=` goes to that user's page.
    func userSearch(_ visitor: ConsoleVisitor, _ request: HTTPServerRequest) async throws -> ConsolePage {
        if let id = request.queryValue("id")?.trimmingCharacters(in: .whitespaces), !id.isEmpty {
            return try await user(visitor, id: id)
        }
        return ConsolePage(
            title: "Users",
            body: """
                <form class="box" method="get" action="/console/users"><label>User id <input name="id" id="find-user"></label>
                <button type="submit">Show user</button></form>
                """)
    }

    /// `GET /console/users/{id}`: the profile card, devices and Live Activity tokens with their state and
    /// Apple's last reason, and the recent pushes to the user.
    func user(_ visitor: ConsoleVisitor, id: String) async throws -> ConsolePage {
        let repositories = api.repositories
        guard let record = try await repositories.users.user(id: id) else {
            throw APIError.notFound("unknown_user", "no user \(id.prefix(128))")
        }
        let card = try record.card
        var body = "<div class=\"card\" id=\"profile\"><strong>\(HTML.escape(card.name))</strong> with <strong>\(HTML.escape(card.dogName))</strong>"
        if let breed = card.breed { body += " (\(HTML.escape(breed)))" }
        if let age = card.age { body += ", \(age) years" }
        if let bio = card.bio { body += "<p>\(HTML.escape(bio))</p>" }
        body += "<p class=\"note\">id <code>\(HTML.escape(record.id))</code>, updated \(HTML.escape(Self.date(record.updatedAt)))</p></div>\n"

        let devices = try await repositories.devices.devices(forUser: id, includeInvalidated: true)
        body += "<h2>Devices</h2>\n"
        if devices.isEmpty {
            body += "<p>No devices.</p>\n"
        } else {
            body +=
                "<table id=\"devices\"><tr><th>Token</th><th>Topic</th><th>Environment</th><th>State</th><th>Apple's last reason</th><th>Last seen</th></tr>\n"
            for device in devices {
                let state = device.isActive ? "active" : "invalidated"
                let reason = device.invalidReason?.rawValue ?? ""
                body += "<tr class=\"device\"><td><code>\(HTML.escape(device.token.hex))</code></td><td>\(HTML.escape(device.topic))</td>"
                body += "<td>\(HTML.escape(device.environment.name))</td><td class=\"\(state)\">\(state)"
                if let at = device.invalidatedAt { body += " \(HTML.escape(Self.date(at)))" }
                body += "</td><td class=\"reason\">\(HTML.escape(reason))</td><td>\(HTML.escape(Self.date(device.lastSeen)))</td></tr>\n"
            }
            body += "</table>\n"
        }

        let now = Date()
        let tokens = try await repositories.activityTokens.tokens(userID: id)
        body += "<h2>Live Activity tokens</h2>\n"
        if tokens.isEmpty {
            body += "<p>No Live Activity tokens.</p>\n"
        } else {
            body += "<table id=\"activity-tokens\"><tr><th>Token</th><th>Kind</th><th>Topic</th><th>Environment</th><th>State</th></tr>\n"
            for token in tokens {
                let state = token.isActive(at: now) ? "active" : "retired"
                body += "<tr><td><code>\(HTML.escape(token.token.hex))</code></td><td>\(HTML.escape(token.kind.name))</td>"
                body +=
                    "<td>\(HTML.escape(token.topic))</td><td>\(HTML.escape(token.environment.name))</td><td class=\"\(state)\">\(state)</td></tr>\n"
            }
            body += "</table>\n"
        }

        body += "<h2>Recent pushes</h2>\n"
        let pushIDs = api.recentPushes.pushes(userID: id)
        if pushIDs.isEmpty {
            body += "<p>None accepted by this instance since it started.</p>\n"
        } else {
            body += "<table id=\"recent-pushes\"><tr><th>Push</th><th>Notifications</th><th>States</th><th>Reasons</th></tr>\n"
            for pushID in pushIDs {
                let rows = try await api.outbox.items(pushID: pushID)
                let states = Dictionary(grouping: rows, by: \.state.rawValue).map { "\($0.value.count) \($0.key)" }.sorted()
                let reasons = Set(rows.compactMap { $0.lastReason?.rawValue }).sorted()
                body += "<tr><td><a href=\"/console/pushes/\(HTML.urlComponent(pushID))\"><code>\(HTML.escape(pushID))</code></a></td>"
                body += "<td>\(rows.count)</td><td>\(HTML.escape(states.joined(separator: ", ")))</td>"
                body += "<td class=\"reason\">\(HTML.escape(reasons.joined(separator: ", ")))</td></tr>\n"
            }
            body += "</table>\n<p class=\"note\">Pushes to this user accepted by this instance since it started.</p>\n"
        }
        body += "<p><a href=\"/console/send?user=\(HTML.urlComponent(id))\">Send a test push to this user</a></p>\n"
        return ConsolePage(title: "User \(id)", body: body)
    }

    /// `GET /console/pushes/{id}`: each notification's state, status, reason and attempts; while any is
    /// pending the page reloads itself every second (a small script; without it, a refresh link).
    func push(_ visitor: ConsoleVisitor, id: String) async throws -> ConsolePage {
        let rows = try await api.outbox.items(pushID: id)
        guard !rows.isEmpty else { throw APIError.notFound("unknown_push", "no push \(id.prefix(128))") }
        let complete = rows.allSatisfy { $0.state.isTerminal }
        var body = "<p id=\"push-state\" class=\"\(complete ? "ok" : "note")\">\(complete ? "Every notification is final." : "Waiting for APNs…")"
        body += " <a href=\"/console/pushes/\(HTML.urlComponent(id))\">Refresh</a></p>\n"
        body += "<table id=\"notifications\"><tr><th>Target</th><th>Topic</th><th>Environment</th><th>State</th><th>Status</th>"
        body += "<th>Reason</th><th>Attempts</th><th>apns-id</th><th>Updated</th></tr>\n"
        for row in rows {
            let target: String
            switch row.target {
            case .device(let token): target = token.hex
            case .channel(let channel): target = "channel " + channel.rawValue
            }
            body += "<tr class=\"notification\"><td><code>\(HTML.escape(target))</code></td><td>\(HTML.escape(row.topic))</td>"
            body += "<td>\(HTML.escape(row.environment.name))</td><td class=\"state \(row.state.rawValue)\">\(HTML.escape(row.state.rawValue))</td>"
            body +=
                "<td class=\"status\">\(row.lastStatus.map(String.init) ?? "")</td><td class=\"reason\">\(HTML.escape(row.lastReason?.rawValue ?? ""))</td>"
            body += "<td>\(row.attempts)</td><td><code>\(HTML.escape(row.apnsID?.rawValue ?? ""))</code></td>"
            body += "<td>\(HTML.escape(Self.date(row.updatedAt)))</td></tr>\n"
        }
        body += "</table>\n"
        var page = ConsolePage(title: "Push \(id)", body: body)
        if !complete { page.script = "setTimeout(function () { window.location.reload(); }, 1000);" }
        return page
    }
}
