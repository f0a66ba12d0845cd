import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `POST /v1/admin/reload`: what SIGHUP does: reads the listener's TLS files, the API keys, every
    /// app's APNs credential and the configuration file's webhook endpoints again. 200 with what was reloaded and each app's outcome; 422 `reload_failed`
    /// when a file cannot be used (what was loaded before stays in use, the error is in `/healthz`).
    func reload(_ request: APIRequest) async throws -> HTTPResponse {
        let result = await reloader.reload()
        if let first = result.errors.first {
            throw APIError(status: 422, code: "reload_failed", message: result.errors.count == 1 ? first : result.errors.joined(separator: "; "))
        }
        return .json(status: 200, result.json)
    }

    /// `GET /healthz`: database and APNs state, overall and per app; 503 when the database does not answer,
    /// and while it refuses writes for space (`"database": "storage_full"`, status `storage_full`, for
    /// `StoreWriteHealth.hold` after each refusal), so a balancer drains the instance.
    func health(_ request: APIRequest) async throws -> HTTPResponse {
        var databaseOK = true
        var databaseState: JSONValue = "ok"
        do {
            try await repositories.database.ping()
        } catch {
            databaseOK = false
            databaseState = .string("error: \(error)")
        }
        let storageFull = databaseOK && repositories.database.writeHealth?.writable == false
        if storageFull {
            databaseOK = false
            databaseState = "storage_full"
        }
        let apns: JSONValue = [
            "production": .string(metrics.apnsHealth("production").rawValue),
            "development": .string(metrics.apnsHealth("development").rawValue),
        ]
        let reloadFailed = senders.apps.contains { $0.credential.reloadError != nil || !$0.connections.failures.isEmpty }
        let degraded =
            !databaseOK || reloadFailed
            || [metrics.apnsHealth("production"), metrics.apnsHealth("development")].contains(.unreachable)
        let status = databaseOK ? (degraded ? "degraded" : "ok") : (storageFull ? "storage_full" : "unavailable")
        return .json(
            status: databaseOK ? 200 : 503,
            [
                "status": .string(status), "database": databaseState, "apns": apns,
                "apps": .array(senders.apps.map { appJSON($0, connections: nil) }),
            ])
    }

    /// `GET /v1/apps`: every app with its topics, credential, health and connections.
    func listApps(_ request: APIRequest) async throws -> HTTPResponse {
        var apps: [JSONValue] = []
        for app in senders.apps {
            var connections: [String: JSONValue] = [:]
            for (name, sender) in [("production", app.production), ("development", app.development)] {
                guard let state = await sender.connectionState() else { continue }
                connections[name] = ["ready": .int(Int64(state.ready)), "open_streams": .int(Int64(state.openStreams))]
            }
            apps.append(appJSON(app, connections: .object(connections)))
        }
        return .json(status: 200, ["apps": .array(apps)])
    }

    /// One app as `/healthz` and `GET /v1/apps` show it.
    func appJSON(_ app: PushApp, connections: JSONValue?) -> JSONValue {
        let credential = app.credential
        let failures = app.connections.failures
        func state(_ environment: String) -> JSONValue {
            failures[environment] != nil ? "unreachable" : .string(metrics.apnsHealth(app: app.name, environment: environment).rawValue)
        }
        var fields: [String: JSONValue] = [
            "name": .string(app.name), "topics": .array(app.topics.map { .string($0) }),
            "any_topic": .bool(app.servesAnyTopic), "credential": .string(credential.kind),
            "production": state("production"), "development": state("development"),
            "loaded_at": .string(ISO8601DateFormatter().string(from: credential.loadedAt)),
        ]
        if let notAfter = credential.notAfter { fields["certificate_not_after"] = .string(ISO8601DateFormatter().string(from: notAfter)) }
        if !credential.certificateTopics.isEmpty { fields["certificate_topics"] = .array(credential.certificateTopics.map { .string($0) }) }
        if let keyID = credential.keyID { fields["key_id"] = .string(keyID) }
        if let teamID = credential.teamID { fields["team_id"] = .string(teamID) }
        if let maxInFlight = app.maxInFlight { fields["max_in_flight"] = .int(Int64(maxInFlight)) }
        if let error = credential.reloadError { fields["reload_error"] = .string(error) }
        if let connections { fields["connections"] = connections }
        if !failures.isEmpty { fields["connection_errors"] = .object(failures.mapValues { .string($0) }) }
        return .object(fields)
    }

    /// APNs connections and open HTTP/2 streams per app and environment, as Prometheus gauges.
    func connectionMetrics() async -> String {
        var connections = ["# HELP push_apns_connections APNs connections ready to send.", "# TYPE push_apns_connections gauge"]
        var streams = ["# HELP push_apns_open_streams HTTP/2 streams open to APNs.", "# TYPE push_apns_open_streams gauge"]
        for app in senders.apps {
            for (name, sender) in [("production", app.production), ("development", app.development)] {
                guard let state = await sender.connectionState() else { continue }
                let labels = "app=\"\(ServiceMetrics.escape(app.name))\",environment=\"\(name)\""
                connections.append("push_apns_connections{\(labels)} \(state.ready)")
                streams.append("push_apns_open_streams{\(labels)} \(state.openStreams)")
            }
        }
        return (connections + streams).joined(separator: "\n") + "\n"
    }

    /// `GET /metrics`: Prometheus text.
    func metricsText(_ request: APIRequest) async throws -> HTTPResponse {
        let (outbox, webhooks) = (self.outbox, repositories.webhooks)
        let store = try await storeGauges.snapshot {
            StoreSnapshot(
                pendingCounts: try await outbox.pendingCounts(), oldestPending: try await outbox.oldestPendingEnqueuedAt(),
                pendingWebhookCounts: try await webhooks.pendingCounts())
        }
        let final = try await finalCountGauges.snapshot {
            FinalCounts(
                outbox: try await outbox.counts().filter { $0.key.isTerminal },
                webhooks: try await webhooks.counts().filter { !$0.key.isPending })
        }
        let outboxCounts = final.outbox.merging(store.pendingCounts) { _, pending in pending }
        let dropMetrics = await match.metrics
        metrics.webhooks.setQueue(final.webhooks.merging(store.pendingWebhookCounts) { _, pending in pending })
        let text = metrics.prometheusText(
            outboxCounts: Dictionary(uniqueKeysWithValues: outboxCounts.map { ($0.key.rawValue, $0.value) }),
            oldestPendingAgeSeconds: store.oldestPending.map { Date().timeIntervalSince($0) } ?? 0,
            extra: dropMetrics.prometheusText() + (await connectionMetrics()) + metrics.webhooks.prometheusText()
                + metrics.liveActivities.prometheusText() + Self.storeWriteMetrics(repositories.database.writeHealth))
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(text.utf8))
    }
}

extension PushAPI {
    /// `push_store_write_failures_total{reason="storage_full"}` and `push_store_writable` (0 while
    /// `/healthz` reports the store unable to write for space). A store in memory is always writable.
    static func storeWriteMetrics(_ health: StoreWriteHealth?) -> String {
        """
        # HELP push_store_write_failures_total Store writes refused, by reason (storage_full: no space left).
        # TYPE push_store_write_failures_total counter
        push_store_write_failures_total{reason="storage_full"} \(health?.storageFullFailures ?? 0)
        # HELP push_store_writable 1 while the store takes writes; 0 for a while after a write refused for space.
        # TYPE push_store_writable gauge
        push_store_writable \(health?.writable == false ? 0 : 1)

        """
    }
}
