import APNSCore
import PushStore

extension OutboxWorker {
    /// Hands claimed rows to the senders, one batch per app and environment (each app has its own
    /// clients); the answers come back through `deliveries` in chunks and are applied by `consume`.
    /// A row whose topic no app serves (its app was removed from the configuration) is rejected here
    /// with TopicDisallowed, as APNs would.
    func launch(_ items: [OutboxItem]) {
        inFlight += items.count
        metrics.setInFlight(inFlight)
        if renewsLeases { hold(items) }
        var groups: [SendGroup: [OutboxItem]] = [:]
        var unserved: [OutboxCompletion] = []
        var unservedRows: [Sent] = []
        for item in items {
            guard let app = senders.index(forTopic: item.topic) else {
                unserved.append(OutboxCompletion(item, .rejected(APNSRejection(.topicDisallowed))))
                unservedRows.append(Sent(app: "", item: item))
                continue
            }
            groups[SendGroup(app: app, environment: item.environment), default: []].append(item)
        }
        for (key, group) in groups {
            let app = senders.apps[key.app]
            let sender = app.sender(for: key.environment)
            let input = deliveryInput
            let started = ContinuousClock.now
            let name = app.name
            let environment = key.environment
            // Channel rows go out as broadcasts (`send(broadcasts:)`), device rows as notifications; each kind
            // is one hand-over whose result indexes refer to its own rows.
            let (devices, channels) = Self.split(group)
            if !devices.isEmpty {
                let derives = derivesCollapseID
                let batch = devices.map { $0.sentNotification(derivingCollapseID: derives) }
                Task {
                    await sender.send(batch: batch) { results in
                        input.yield(Delivery(items: devices, started: started, app: name, environment: environment, results: results))
                    }
                }
            }
            if !channels.isEmpty {
                let broadcasts = channels.compactMap(\.broadcast)
                Task {
                    await sender.send(broadcasts: broadcasts) { results in
                        input.yield(Delivery(items: channels, started: started, app: name, environment: environment, results: results))
                    }
                }
            }
        }
        if !unserved.isEmpty { finished(unserved, unservedRows) }
    }

    /// Device rows and channel rows of one group, each in claim order.
    private static func split(_ items: [OutboxItem]) -> (devices: [OutboxItem], channels: [OutboxItem]) {
        guard items.contains(where: { $0.target.channelID != nil }) else { return (items, []) }
        var devices: [OutboxItem] = []
        var channels: [OutboxItem] = []
        for item in items {
            if item.target.channelID == nil { devices.append(item) } else { channels.append(item) }
        }
        return (devices, channels)
    }
}
