import APNSCore
import Foundation
import PushStore

extension PushConsole {
    /// `GET /console`: apps (topics, credential, expiry, APNs health, connections), the outbox per app, the
    /// outcomes of the last minutes and the rejections by reason.
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

        body += try await outboxTable()

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

    /// The outbox per app: queued and in-flight rows and the oldest one's age, from one grouped read of the
    /// pending rows per topic (`OutboxRepository.pendingByTopic`), each topic counted for the app that serves
    /// it (`PushSenders.index(forTopic:)`); topics no app serves in a row of their own.
    func outboxTable() async throws -> String {
        let now = Date()
        let apps = api.senders.apps
        var byApp = [OutboxTopicDepth?](repeating: nil, count: apps.count)
        var unserved: OutboxTopicDepth?
        func add(_ topic: OutboxTopicDepth, to entry: inout OutboxTopicDepth?) {
            guard var sum = entry else {
                entry = topic
                return
            }
            sum.queued += topic.queued
            sum.inFlight += topic.inFlight
            sum.oldestEnqueuedAt = min(sum.oldestEnqueuedAt, topic.oldestEnqueuedAt)
            entry = sum
        }
        for topic in try await api.outbox.pendingByTopic() {
            if let index = api.senders.index(forTopic: topic.topic) { add(topic, to: &byApp[index]) } else { add(topic, to: &unserved) }
        }
        func row(_ name: String, _ entry: OutboxTopicDepth?, class rowClass: String) -> String {
            let age = entry.map { Self.duration(now.timeIntervalSince($0.oldestEnqueuedAt)) } ?? "nothing pending"
            return "<tr class=\"\(rowClass)\" data-app=\"\(HTML.escape(name))\"><td>\(HTML.escape(name))</td>"
                + "<td class=\"queued\">\(entry?.queued ?? 0)</td><td class=\"in-flight\">\(entry?.inFlight ?? 0)</td>"
                + "<td class=\"oldest\">\(HTML.escape(age))</td></tr>\n"
        }
        var table = "<h2>Outbox</h2>\n<table id=\"outbox\"><tr><th>App</th><th>Queued</th><th>In flight</th><th>Oldest pending</th></tr>\n"
        for (index, app) in apps.enumerated() { table += row(app.name, byApp[index], class: "outbox-app") }
        if let unserved { table += row("topics no app serves", unserved, class: "outbox-unserved") }
        table += "</table>\n"
        return table
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
