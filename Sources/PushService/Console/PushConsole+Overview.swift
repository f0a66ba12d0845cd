import APNSCore
import Foundation
import PushStore

extension PushConsole {
    /// `GET /console`: apps (topics, credential, expiry, APNs health, connections), the outbox, the outcomes
    /// of the last minutes and the rejections by reason.
    func overview(_ visitor: ConsoleVisitor) async throws -> ConsolePage {
        var body = "<h2>Apps</h2>\n<table id=\"apps\"><tr><th>App</th><th>Topics</th><th>Credential</th><th>Expires</th>"
        body += "<th>APNs production</th><th>APNs development</th><th>Connections</th></tr>\n"
        for app in api.senders.apps {
            let credential = app.credential
            let failures = app.connections.failures
            func health(_ environment: String) -> String {
                let state = failures[environment] != nil ? "unreachable" : api.metrics.apnsHealth(app: app.name, environment: environment).rawValue
                return "<span class=\"\(state)\">\(state)</span>"
                    + (failures[environment].map { " <span class=\"note\">\(HTML.escape($0))</span>" } ?? "")
            }
            var connections: [String] = []
            for (name, sender) in [("production", app.production), ("development", app.development)] {
                guard let state = await sender.connectionState() else { continue }
                connections.append("\(name): \(state.ready) ready, \(state.openStreams) streams")
            }
            let topics = app.servesAnyTopic ? "any topic" : app.topics.joined(separator: ", ")
            var kind = credential.kind
            if let keyID = credential.keyID { kind += " (key \(keyID))" }
            let expiry = credential.notAfter.map { Self.date($0) } ?? (credential.kind == "token" ? "no expiry (token key)" : "unknown")
            body += "<tr class=\"app\"><td>\(HTML.escape(app.name))</td><td>\(HTML.escape(topics))</td><td>\(HTML.escape(kind))"
            if let error = credential.reloadError { body += "<br><span class=\"bad\">reload failed: \(HTML.escape(error))</span>" }
            body += "</td><td>\(HTML.escape(expiry))</td><td>\(health("production"))</td><td>\(health("development"))</td>"
            body += "<td>\(HTML.escape(connections.isEmpty ? "none open" : connections.joined(separator: "; ")))</td></tr>\n"
        }
        body += "</table>\n"

        let pending = try await api.outbox.pendingCounts()
        let oldest = try await api.outbox.oldestPendingEnqueuedAt()
        let age = oldest.map { Self.duration(Date().timeIntervalSince($0)) } ?? "nothing pending"
        body += """
            <h2>Outbox</h2>
            <table id="outbox"><tr><th>Apps</th><th>Queued</th><th>In flight</th><th>Oldest pending</th></tr>
            <tr><td>all</td><td>\(pending[.queued] ?? 0)</td><td>\(pending[.inFlight] ?? 0)</td><td>\(HTML.escape(age))</td></tr></table>
            <p class="note">The store counts pending rows for all apps together.</p>

            """

        let now = Date()
        let intervals = history.intervals(current: ConsoleOutcomeHistory.totals(api.metrics), now: now)
        body += "<h2>Send outcomes, last minutes</h2>\n" + ConsoleChart.svg(intervals, slots: history.capacity - 1, now: now)
        body += "\n<p class=\"note\">Sampled every \(Int(history.interval / .seconds(1))) s on this instance since it started.</p>\n"

        var rejections: [String: [String: Int]] = [:]
        for entry in api.metrics.pushCounts() where entry.outcome == "rejected" || entry.outcome == "failed" {
            rejections[entry.reason.isEmpty ? entry.outcome : entry.reason, default: [:]][entry.app.isEmpty ? "-" : entry.app, default: 0] +=
                entry.count
        }
        body += "<h2>Rejections by reason</h2>\n"
        if rejections.isEmpty {
            body += "<p id=\"rejections\">None since start.</p>\n"
        } else {
            body += "<table id=\"rejections\"><tr><th>Reason</th><th>App</th><th>Count</th></tr>\n"
            for reason in rejections.keys.sorted() {
                for (app, count) in rejections[reason, default: [:]].sorted(by: { $0.key < $1.key }) {
                    body += "<tr><td>\(HTML.escape(reason))</td><td>\(HTML.escape(app))</td><td>\(count)</td></tr>\n"
                }
            }
            body += "</table>\n"
        }
        body += """
            <h2>Find</h2>
            <form method="get" action="/console/users"><label>User id <input name="id" id="find-user"></label>
            <button type="submit">Show user</button></form>

            """
        return ConsolePage(title: "Overview", body: body)
    }

    /// `2025-01-31 12:00:00 UTC`.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }

    /// `4 s`, `3 min 2 s`, `2 h 5 min`.
    static func duration(_ seconds: TimeInterval) -> String {
        let whole = max(0, Int(seconds))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
