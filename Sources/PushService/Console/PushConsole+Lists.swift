import APNSCore
import Foundation
import PushStore

extension PushConsole {
    /// `GET /console/channels`: every app's broadcast channels in both environments.
    func channels(_ visitor: ConsoleVisitor) async throws -> ConsolePage {
        var body = "<table id=\"channels\"><tr><th>App</th><th>Channel</th><th>Environment</th><th>Storage policy</th><th>Created</th></tr>\n"
        var count = 0
        for app in api.senders.apps {
            for topic in app.topics {
                for channel in try await api.repositories.channels.channels(topic: topic, environment: nil) {
                    count += 1
                    body += "<tr><td>\(HTML.escape(app.name))</td><td><code>\(HTML.escape(channel.id.rawValue))</code></td>"
                    body += "<td>\(HTML.escape(channel.environment.name))</td><td>\(channel.storagePolicy.rawValue)</td>"
                    body += "<td>\(HTML.escape(Self.date(channel.createdAt)))</td></tr>\n"
                }
            }
        }
        body += "</table>\n"
        if count == 0 { body = "<p id=\"channels\">No channels.</p>\n" }
        return ConsolePage(title: "Channels", body: body)
    }

    /// `GET /console/webhooks` (admin scope, as `GET /v1/webhooks`): each endpoint with its recent deliveries
    /// of every state (delivered, failed, still to be sent), the newest change first, at most
    /// `recentDeliveries` each (one bounded read per endpoint, by its `(endpoint_id, updated_at)` index).
    func webhooks(_ visitor: ConsoleVisitor) async throws -> ConsolePage {
        let endpoints = try await api.repositories.webhooks.endpoints()
        guard !endpoints.isEmpty else { return ConsolePage(title: "Webhooks", body: "<p id=\"webhooks\">No webhooks.</p>\n") }
        var body = ""
        for endpoint in endpoints {
            let events = endpoint.events.map(\.rawValue).sorted().joined(separator: ", ")
            body += "<h2><code>\(HTML.escape(endpoint.id))</code> \(HTML.escape(endpoint.url))</h2>\n"
            body += "<p class=\"note\">events: \(HTML.escape(events)); created \(HTML.escape(Self.date(endpoint.createdAt)))</p>\n"
            let deliveries = try await api.repositories.webhooks.deliveries(
                endpointID: endpoint.id, failedOnly: false, limit: Self.recentDeliveries)
            if deliveries.isEmpty {
                body += "<p class=\"deliveries\" data-endpoint=\"\(HTML.escape(endpoint.id))\">No deliveries yet.</p>\n"
                continue
            }
            body += "<p class=\"note\">The most recent deliveries (up to \(Self.recentDeliveries)), newest change first.</p>\n"
            body += "<table class=\"deliveries\" data-endpoint=\"\(HTML.escape(endpoint.id))\">"
            body +=
                "<tr><th>Event</th><th>Type</th><th>State</th><th>Attempts</th><th>Last status</th><th>Last error</th><th>Queued</th><th>Updated</th></tr>\n"
            for delivery in deliveries {
                body += "<tr class=\"delivery\"><td><code>\(HTML.escape(delivery.eventID))</code></td><td>\(HTML.escape(delivery.type.rawValue))</td>"
                body += "<td class=\"state \(HTML.escape(delivery.state.rawValue))\">\(HTML.escape(delivery.state.rawValue))</td>"
                body += "<td class=\"attempts\">\(delivery.attempts)</td>"
                body += "<td class=\"status\">\(delivery.lastStatus.map(String.init) ?? "")</td>"
                body += "<td class=\"error\">\(HTML.escape(delivery.lastError ?? ""))</td>"
                body += "<td>\(HTML.escape(Self.date(delivery.createdAt)))</td><td>\(HTML.escape(Self.date(delivery.updatedAt)))</td></tr>\n"
            }
            body += "</table>\n"
        }
        return ConsolePage(title: "Webhooks", body: body)
    }

    /// How many deliveries of each endpoint the webhooks page lists.
    static let recentDeliveries = 20

    /// `GET /console/mock` (embedded mode): each mock's control API and what the mocks received, newest first.
    func mockPage(_ visitor: ConsoleVisitor) async throws -> ConsolePage {
        guard let view = mock.view else {
            throw APIError.notFound("no_mock", "this server talks to APNs, not to the embedded mock")
        }
        var body = "<p>Control APIs (programmable rules, records; see docs/mock-control.yaml):</p><ul>\n"
        for control in view.controls {
            body += "<li>\(HTML.escape(control.app)): <code class=\"control-url\">\(HTML.escape(control.url))</code></li>\n"
        }
        body += "</ul>\n"
        let records = view.records().sorted { $0.time > $1.time }
        if records.isEmpty {
            body += "<p id=\"mock-records\">Nothing received yet.</p>\n"
        } else {
            body +=
                "<table id=\"mock-records\"><tr><th>Time</th><th>App</th><th>Token</th><th>Topic</th><th>Push type</th><th>Status</th><th>Reason</th></tr>\n"
            for record in records.prefix(200) {
                body += "<tr><td>\(HTML.escape(Self.date(record.time)))</td><td>\(HTML.escape(record.app))</td>"
                body += "<td><code>\(HTML.escape(record.token))</code></td><td>\(HTML.escape(record.topic ?? ""))</td>"
                body +=
                    "<td>\(HTML.escape(record.pushType ?? ""))</td><td>\(record.status)</td><td class=\"reason\">\(HTML.escape(record.reason ?? ""))</td></tr>\n"
            }
            body += "</table>\n"
        }
        return ConsolePage(title: "Mock APNs", body: body)
    }
}
