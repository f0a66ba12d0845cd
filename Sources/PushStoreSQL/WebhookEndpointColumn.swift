import APNSCore
import Foundation
import PushStore

/// The columns of `webhook_endpoints`, in SELECT (and INSERT) order.
enum WebhookEndpointColumn: Int32, StoreColumn {
    case id, url, events, secret, source, createdAt
}

extension WebhookEndpoint {
    /// The endpoint in a row selecting `WebhookEndpointColumn.selectList`.
    init(row: some StoreRow) {
        self.init(
            id: row.string(WebhookEndpointColumn.id), url: row.string(WebhookEndpointColumn.url),
            events: WebhookEndpoint.events(stored: row.string(WebhookEndpointColumn.events)),
            secret: row.string(WebhookEndpointColumn.secret),
            source: WebhookEndpoint.Source(rawValue: row.string(WebhookEndpointColumn.source)) ?? .api,
            createdAt: row.date(WebhookEndpointColumn.createdAt))
    }
}
