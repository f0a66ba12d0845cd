import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// Deliveries `GET /v1/webhooks/{id}/deliveries` lists at most.
    static let deliveriesListed = 100

    /// `POST /v1/webhooks`: registers an endpoint (201). The answer holds the secret, generated unless given;
    /// no later answer shows it again.
    func createWebhook(_ request: APIRequest) async throws -> HTTPResponse {
        let fields = try request.jsonBody()
        try fields.checkKnown(["id", "url", "events", "secret"])
        let id = try fields.string("id", maxBytes: 64) ?? Self.generatedWebhookID()
        guard StoreValidation.isUserID(id) else { throw APIError.invalidField("id", "must be 1-64 characters of A-Z a-z 0-9 _ . -") }
        let url = try fields.requiredString("url", maxBytes: 8_192)
        guard url.unicodeScalars.count <= 2_048 else { throw APIError.invalidField("url", "longer than 2048 characters") }
        guard StoreValidation.hasHTTPScheme(url) else {
            throw APIError.invalidField("url", "must start with http:// or https://")
        }
        let events = try WebhookSettings.events(fields, "")
        let secret = try fields.string("secret", maxBytes: 1_024, maxLength: 256) ?? Self.generatedWebhookSecret()
        guard secret.unicodeScalars.count >= 16 else { throw APIError.invalidField("secret", "shorter than 16 characters") }
        let endpoint = WebhookEndpoint(id: id, url: url, events: events, secret: secret, source: .api, createdAt: Date())
        try await repositories.webhooks.addEndpoint(endpoint)
        logger.info("webhook.created", [("endpoint", id), ("events", "\(events.count)")])
        var json = RecordJSON.webhook(endpoint)
        if case .object(var members) = json {
            members["secret"] = .string(secret)
            json = .object(members)
        }
        return .json(status: 201, json)
    }

    /// `GET /v1/webhooks`: every endpoint, without secrets.
    func listWebhooks(_ request: APIRequest) async throws -> HTTPResponse {
        let endpoints = try await repositories.webhooks.endpoints()
        return .json(status: 200, ["webhooks": .array(endpoints.map(RecordJSON.webhook))])
    }

    /// `DELETE /v1/webhooks/{id}`: removes the endpoint and its undelivered events (204, or 404).
    func deleteWebhook(_ request: APIRequest) async throws -> HTTPResponse {
        let id = request.parameter("id")
        guard try await repositories.webhooks.removeEndpoint(id: id) else {
            throw APIError.notFound("unknown_webhook", "no webhook with this id")
        }
        logger.info("webhook.deleted", [("endpoint", id)])
        return .empty(status: 204)
    }

    /// `GET /v1/webhooks/{id}/deliveries`: the endpoint's most recent deliveries that failed at least once
    /// (still retrying, given up, or delivered after failures), newest first.
    func listWebhookDeliveries(_ request: APIRequest) async throws -> HTTPResponse {
        let id = request.parameter("id")
        guard try await repositories.webhooks.endpoint(id: id) != nil else {
            throw APIError.notFound("unknown_webhook", "no webhook with this id")
        }
        let deliveries = try await repositories.webhooks.deliveries(endpointID: id, failedOnly: true, limit: Self.deliveriesListed)
        return .json(status: 200, ["deliveries": .array(deliveries.map(RecordJSON.webhookDelivery))])
    }

    /// `wh_` and 16 random hex digits.
    static func generatedWebhookID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "wh_" + hex((0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// 32 random bytes in hex.
    static func generatedWebhookSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_" + hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { $0 < 0x10 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

extension RecordJSON {
    static func webhook(_ endpoint: WebhookEndpoint) -> JSONValue {
        .object([
            "id": .string(endpoint.id), "url": .string(endpoint.url),
            "events": .array(endpoint.events.map(\.rawValue).sorted().map { .string($0) }),
            "source": .string(endpoint.source.rawValue), "created_at": time(endpoint.createdAt),
        ])
    }

    static func webhookDelivery(_ delivery: WebhookDelivery) -> JSONValue {
        let pending = delivery.state == .pending || delivery.state == .inFlight
        return .object([
            "event_id": .string(delivery.eventID), "type": .string(delivery.type.rawValue),
            "state": .string(delivery.state.rawValue), "attempts": .int(Int64(delivery.attempts)),
            "last_status": optional(delivery.lastStatus), "last_error": optional(delivery.lastError),
            "next_attempt_at": time(pending ? delivery.nextAttemptAt : nil), "created_at": time(delivery.createdAt),
            "updated_at": time(delivery.updatedAt),
        ])
    }
}
