import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushIO
import PushStore

extension PushAPI {
    /// `POST /v1/admin/reload`: reads the listener's TLS certificate, key and client CA again (what SIGHUP
    /// does); 200 with what was reloaded, 422 `reload_failed` when a file cannot be used (the old stay).
    func reload(_ request: APIRequest) async throws -> HTTPServerResponse {
        var reloaded: [JSONValue] = []
        if let listenerTLS {
            do {
                try ListenerTLS.reload(listenerTLS, configuration.tls, logger: logger)
            } catch {
                throw APIError(status: 422, code: "reload_failed", message: error.message)
            }
            reloaded.append("tls")
        }
        return .json(status: 200, ["reloaded": .array(reloaded)])
    }

    /// `GET /healthz`: database and APNs state; 503 when the database does not answer.
    func health(_ request: APIRequest) async throws -> HTTPServerResponse {
        var databaseOK = true
        var databaseState: JSONValue = "ok"
        do {
            try await repositories.database.ping()
        } catch {
            databaseOK = false
            databaseState = .string("error: \(error)")
        }
        let apns: JSONValue = [
            "production": .string(metrics.apnsHealth("production").rawValue),
            "development": .string(metrics.apnsHealth("development").rawValue),
        ]
        let degraded = !databaseOK || [metrics.apnsHealth("production"), metrics.apnsHealth("development")].contains(.unreachable)
        let status = databaseOK ? (degraded ? "degraded" : "ok") : "unavailable"
        return .json(status: databaseOK ? 200 : 503, ["status": .string(status), "database": databaseState, "apns": apns])
    }

    /// APNs connections and open HTTP/2 streams per environment, as Prometheus gauges.
    func connectionMetrics() async -> String {
        var connections = ["# HELP push_apns_connections APNs connections ready to send.", "# TYPE push_apns_connections gauge"]
        var streams = ["# HELP push_apns_open_streams HTTP/2 streams open to APNs.", "# TYPE push_apns_open_streams gauge"]
        for (name, sender) in [("production", senders.production), ("development", senders.development)] {
            guard let state = await sender.connectionState() else { continue }
            connections.append("push_apns_connections{environment=\"\(name)\"} \(state.ready)")
            streams.append("push_apns_open_streams{environment=\"\(name)\"} \(state.openStreams)")
        }
        return (connections + streams).joined(separator: "\n") + "\n"
    }

    /// `GET /metrics`: Prometheus text.
    func metricsText(_ request: APIRequest) async throws -> HTTPServerResponse {
        let counts = try await outbox.counts()
        let oldest = try await outbox.oldestPendingEnqueuedAt()
        let dropMetrics = await match.metrics
        metrics.webhooks.setQueue(try await repositories.webhooks.counts())
        let text = metrics.prometheusText(
            outboxCounts: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
            oldestPendingAgeSeconds: oldest.map { Date().timeIntervalSince($0) } ?? 0,
            extra: dropMetrics.prometheusText() + (await connectionMetrics()) + metrics.webhooks.prometheusText())
        return HTTPServerResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(text.utf8))
    }
}
