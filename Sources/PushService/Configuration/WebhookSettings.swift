import Foundation
import JSON
public import PushStore

/// Webhook endpoints from the configuration file and how deliveries run (`webhooks` and
/// `webhook_delivery` in the file).
public struct WebhookSettings: Sendable, Equatable {
    /// Endpoints listed in the file (`source: config`): at start they replace the configured ones in the store.
    public var endpoints: [WebhookEndpoint] = []
    /// Silence after which an attempt counts as timed out.
    public var timeout: Duration = .seconds(10)
    /// Requests in flight per endpoint at most.
    public var concurrency = 4
    /// Events per request at most (a receiver gets `{"events": [...]}`).
    public var batchSize = 50
    /// Time between looks at the queue when nothing woke the worker.
    public var pollInterval: Duration = .seconds(1)
    /// How long a claim holds an event (several instances on one database).
    public var lease: Duration = .seconds(60)
    /// The retry schedule.
    public var retry = WebhookRetryPolicy.default

    /// The defaults.
    public init() {}

    /// Reads `webhooks`: a list of `{"id", "url", "events", "secret" | "secret_file"}`.
    mutating func apply(endpoints list: [JSONValue]) throws(APIError) {
        endpoints = []
        for (index, value) in list.enumerated() {
            let name = "webhooks[\(index)]"
            let fields = try JSONFields(value, prefix: name + ".")
            try fields.checkKnown(["id", "url", "events", "secret", "secret_file"])
            let id = try fields.requiredString("id", maxBytes: 64)
            let url = try fields.requiredString("url", maxBytes: 2_048)
            let events = try Self.events(fields, name)
            var secret = try fields.string("secret", maxBytes: 256)
            if let file = try fields.string("secret_file") {
                guard let data = FileManager.default.contents(atPath: file), let text = String(bytes: data, encoding: .utf8)
                else { throw .invalidField(name + ".secret_file", "cannot be read") }
                secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let secret, !secret.isEmpty else { throw .invalidField(name + ".secret", "a secret or secret_file is required") }
            let endpoint = WebhookEndpoint(id: id, url: url, events: events, secret: secret, source: .config, createdAt: Date())
            do {
                try endpoint.validate()
            } catch {
                throw .invalidField(name, "\(error)")
            }
            guard !endpoints.contains(where: { $0.id == id }) else { throw .invalidField(name + ".id", "listed twice") }
            endpoints.append(endpoint)
        }
    }

    /// The `events` list of an endpoint: type names, or `["*"]` for every type.
    static func events(_ fields: JSONFields, _ name: String) throws(APIError) -> Set<WebhookEventType> {
        let field = name.isEmpty ? "events" : name + ".events"
        guard let list = try fields.array("events"), !list.isEmpty else {
            throw .invalidField(field, "a non-empty list of event types is required")
        }
        var events = Set<WebhookEventType>()
        for value in list {
            guard case .string(let text) = value else { throw .invalidField(field, "must hold strings") }
            if text == "*" {
                events.formUnion(WebhookEventType.allCases)
            } else if let type = WebhookEventType(rawValue: text) {
                events.insert(type)
            } else {
                throw .invalidField(field, "unknown event type \(text)")
            }
        }
        return events
    }

    /// Reads `webhook_delivery`.
    mutating func apply(delivery section: JSONFields) throws(APIError) {
        try section.checkKnown([
            "timeout_s", "concurrency", "batch_size", "poll_s", "lease_s", "retry_initial_s", "retry_max_s", "give_up_after_s",
        ])
        if let value = try section.positiveSeconds("timeout_s") { timeout = value }
        if let value = try section.positiveSeconds("poll_s") { pollInterval = value }
        if let value = try section.positiveSeconds("lease_s") { lease = value }
        if let value = try section.positiveSeconds("retry_initial_s") { retry.initialDelay = value }
        if let value = try section.positiveSeconds("retry_max_s") { retry.maxDelay = value }
        if let value = try section.positiveSeconds("give_up_after_s") { retry.giveUpAfter = value }
        if let value = try section.int("concurrency") {
            guard (1...64).contains(value) else { throw .invalidField("webhook_delivery.concurrency", "must be 1-64") }
            concurrency = value
        }
        if let value = try section.int("batch_size") {
            guard (1...1_000).contains(value) else { throw .invalidField("webhook_delivery.batch_size", "must be 1-1000") }
            batchSize = value
        }
    }
}
