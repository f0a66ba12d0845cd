import APNSCore
import PushStore

extension OutboxWorker {
    /// Hands claimed rows to the senders, one batch per environment; the answers come back through
    /// `deliveries` in chunks and are applied by `consume`.
    func launch(_ items: [OutboxItem]) {
        inFlight += items.count
        metrics.setInFlight(inFlight)
        let groups: [(environment: APNSEnvironment, items: [OutboxItem])]
        if let first = items.first?.environment, items.allSatisfy({ $0.environment == first }) {
            groups = [(first, items)]
        } else {
            var byEnvironment: [APNSEnvironment: [OutboxItem]] = [:]
            for item in items { byEnvironment[item.environment, default: []].append(item) }
            groups = byEnvironment.map { ($0.key, $0.value) }
        }
        for (environment, group) in groups {
            let sender = senders.sender(for: environment)
            let input = deliveryInput
            let started = ContinuousClock.now
            // Channel rows go out as broadcasts (`send(broadcasts:)`), device rows as notifications; each kind
            // is one hand-over whose result indexes refer to its own rows.
            let (devices, channels) = Self.split(group)
            if !devices.isEmpty {
                let batch = devices.map(\.notification)
                Task {
                    await sender.send(batch: batch) { results in
                        input.yield(Delivery(items: devices, started: started, environment: environment, results: results))
                    }
                }
            }
            if !channels.isEmpty {
                let broadcasts = channels.compactMap(\.broadcast)
                Task {
                    await sender.send(broadcasts: broadcasts) { results in
                        input.yield(Delivery(items: channels, started: started, environment: environment, results: results))
                    }
                }
            }
        }
    }

    /// Device rows and channel rows of one group, each in claim order.
    private static func split(_ items: [OutboxItem]) -> (devices: [OutboxItem], channels: [OutboxItem]) {
        guard items.contains(where: { $0.channelID != nil }) else { return (items, []) }
        var devices: [OutboxItem] = []
        var channels: [OutboxItem] = []
        for item in items {
            if item.channelID == nil { devices.append(item) } else { channels.append(item) }
        }
        return (devices, channels)
    }
}
