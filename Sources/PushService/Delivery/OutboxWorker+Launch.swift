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
        let (keys, groups, unserved) = Self.route(items, senders: senders)
        for (key, group) in zip(keys, groups) {
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
        if !unserved.isEmpty {
            finished(
                unserved.map { OutboxCompletion($0, .rejected(APNSRejection(.topicDisallowed))) },
                unserved.map { Sent(app: "", item: $0) })
        }
    }

    /// The rows of a claim by app and environment, in claim order within each group, and the rows no app
    /// serves (rejected with TopicDisallowed). A push's rows come together in a claim, so the app is looked
    /// up once per run of rows with the same topic and environment, not per row; a claim that all goes to one
    /// app and environment (the usual case) is passed on as it is, with no row copied.
    static func route(_ items: [OutboxItem], senders: PushSenders) -> (keys: [SendGroup], groups: [[OutboxItem]], unserved: [OutboxItem]) {
        var keys: [SendGroup] = []
        var positions: [Int] = []  // each row's group (index in keys), or -1 when no app serves it
        positions.reserveCapacity(items.count)
        var last: (topic: String, environment: APNSEnvironment, group: Int)?
        var unserved = 0
        for index in items.indices {
            if let run = last, run.topic == items[index].topic, run.environment == items[index].environment {
                positions.append(run.group)
                if run.group < 0 { unserved += 1 }
                continue
            }
            let topic = items[index].topic
            let environment = items[index].environment
            var group = -1
            if let app = senders.index(forTopic: topic) {
                let key = SendGroup(app: app, environment: environment)
                group = keys.firstIndex(of: key) ?? keys.count
                if group == keys.count { keys.append(key) }
            } else {
                unserved += 1
            }
            positions.append(group)
            last = (topic, environment, group)
        }
        if keys.count == 1 && unserved == 0 { return (keys, [items], []) }
        var groups = [[OutboxItem]](repeating: [], count: keys.count)
        var rejected: [OutboxItem] = []
        for index in items.indices {
            let group = positions[index]
            if group >= 0 { groups[group].append(items[index]) } else { rejected.append(items[index]) }
        }
        return (keys, groups, rejected)
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
