public import Foundation

/// An operator's registered receiver: where events go, which ones, and the secret they are signed with.
public struct WebhookEndpoint: Sendable, Equatable {
    /// Where an endpoint came from: the API (kept until deleted) or the configuration file (replaced at start).
    public enum Source: String, Sendable {
        /// Created through `POST /v1/webhooks`.
        case api
        /// Listed under `webhooks` in the configuration file.
        case config
    }

    /// The endpoint id (`wh_` followed by letters and digits, or the configuration's `id`).
    public var id: String
    /// The `http://` or `https://` URL events are POSTed to.
    public var url: String
    /// The event types delivered to it.
    public var events: Set<WebhookEventType>
    /// The HMAC-SHA256 key for the `Webhook-Signature` header. Never logged.
    public var secret: String
    /// Where the registration came from.
    public var source: Source
    /// When it was registered.
    public var createdAt: Date

    /// An endpoint from its parts.
    public init(
        id: String, url: String, events: Set<WebhookEventType>, secret: String, source: Source = .api,
        createdAt: Date
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.secret = secret
        self.source = source
        self.createdAt = createdAt.storeNormalized
    }

    /// The event list as stored: sorted raw values joined by commas, with a comma before and after (so a
    /// `LIKE '%,type,%'` finds one type).
    package var storedEvents: String {
        "," + events.map(\.rawValue).sorted().joined(separator: ",") + ","
    }

    /// The event set from its stored form (unknown names are skipped).
    package static func events(stored: String) -> Set<WebhookEventType> {
        Set(stored.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) })
    }

    /// Throws unless the id, URL and event list are acceptable.
    public func validate() throws {
        guard StoreValidation.isUserID(id) else {
            throw PushStoreError.invalidField(field: "id", reason: "must be 1-64 characters of A-Z a-z 0-9 _ . -")
        }
        guard StoreValidation.hasHTTPScheme(url), url.utf8.count <= 8_192 else {
            throw PushStoreError.invalidField(field: "url", reason: "must be an http:// or https:// URL")
        }
        guard !events.isEmpty else { throw PushStoreError.invalidField(field: "events", reason: "must not be empty") }
        guard !secret.isEmpty, secret.utf8.count <= 1_024 else {
            throw PushStoreError.invalidField(field: "secret", reason: "must be 1-1024 bytes")
        }
    }
}
