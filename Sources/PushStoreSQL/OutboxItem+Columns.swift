import APNSCore
import Foundation
import PushStore

/// How an outbox row's typed fields sit in the columns both SQL backends share (`token`, `channel_id`,
/// `expiration`, `apns_id`, `last_reason`): the only place they are turned into column values and back.
extension OutboxTarget {
    /// The `token` column: the device's hex, empty for a channel row.
    var tokenColumn: String {
        if case .device(let token) = self { return token.hex }
        return ""
    }

    /// The `channel_id` column: the channel, NULL for a device row.
    var channelColumn: String? {
        if case .channel(let channelID) = self { return channelID.rawValue }
        return nil
    }

    /// The target of a row whose `token` column holds `token` and whose `channel_id` column holds `channel`
    /// (set for a channel row only).
    init(tokenColumn token: String, channelColumn channel: String?) {
        if let channel {
            self = .channel(APNSChannelID(rawValue: channel))
        } else {
            self = .device(DeviceToken(storedHex: token))
        }
    }
}

extension APNSExpiration {
    /// The `expiration` column: epoch seconds, NULL for no header.
    var column: Int64? { epochSeconds }

    /// The expiration of a row whose `expiration` column holds `seconds`.
    init(column seconds: Int?) {
        self = seconds.map { .at(epochSeconds: Int64($0)) } ?? .none
    }
}

extension OutboxItem {
    /// The `apns_id` column read back: the ids the store keeps were checked on the way in (the type admits
    /// only UUIDs), so text of another form, which no row can hold, reads as no id.
    static func apnsID(column text: String?) -> APNSID? {
        text.flatMap(APNSID.init(rawValue:))
    }

    /// The `last_reason` column read back.
    static func lastReason(column text: String?) -> OutboxReason? {
        text.map(OutboxReason.init(rawValue:))
    }
}

/// Rows that just ended (rejected, failed or expired), each with the delivery result that ended it (nil
/// when it expired without an answer), for their webhook events: an event is built from the result as the
/// APNs client gave it, and an expired row's from what the row holds.
enum OutboxEnded {
    typealias Row = (id: String, result: APNSDeliveryResult?)

    /// The rows `results` ended rejected or failed (by `states`, what `complete` wrote), each with its
    /// result; when an id is listed twice, its first outcome counts, as in `complete`.
    static func rows(_ results: [OutboxCompletion], states: [String: OutboxState]) -> [Row] {
        var ended: [Row] = []
        var seen = Set<String>()
        for completion in results {
            guard let state = states[completion.id], state == .rejected || state == .failed, seen.insert(completion.id).inserted
            else { continue }
            ended.append((completion.id, completion.result))
        }
        return ended
    }

    /// Writes the webhook events of the rows that just ended (rejected, failed or expired) inside the caller's
    /// transaction `db`: nothing is read unless an endpoint subscribes to the rows' outcomes. Each row is read
    /// back by `item`; one that ended with a delivery result is reported with that result, an expired one with
    /// what the row holds.
    static func report(_ ended: [Row], now: Date, _ db: some SQLSession, item: (String) throws -> OutboxItem?) throws {
        guard !ended.isEmpty else { return }
        let subscribers = try WebhookQueue.subscribers(db)
        guard !subscribers.isEmpty else { return }
        var events: [WebhookEvent] = []
        for (id, result) in ended {
            guard let item = try item(id), let event = event(item, result: result, now: now), subscribers.wants(event.type)
            else { continue }
            events.append(event)
        }
        try WebhookQueue.record(events, subscribers: subscribers, db)
    }

    /// The event of `item`, read back after it ended, with the `result` that ended it.
    static func event(_ item: OutboxItem, result: APNSDeliveryResult?, now: Date) -> WebhookEvent? {
        if let result { return WebhookEvents.notification(item, state: item.state, result: result, now: now) }
        return WebhookEvents.notification(item, state: item.state, status: item.lastStatus, reason: item.lastReason, now: now)
    }
}
