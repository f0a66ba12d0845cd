public import Foundation
import PushSync

/// `WebhookRepository` in memory, with the SQL stores' rules. A lock, not an actor: the other in-memory
/// repositories write their events synchronously inside their own actor's turn, as the SQL stores do
/// inside their transaction.
public final class InMemoryWebhookRepository: WebhookRepository {
    private struct State {
        var endpoints: [WebhookEndpoint] = []
        var rows: [WebhookDelivery] = []
        /// Lease deadlines of in-flight rows, by endpoint id and event id.
        var leases: [String: Date] = [:]
    }

    private let state = PThreadLock(State())
    /// An empty store.
    public init() {}

    private static func key(_ row: WebhookDelivery) -> String { row.endpointID + " " + row.eventID }

    /// Whether any endpoint subscribes to `type` (so callers build no event nobody wants).
    package func wants(_ type: WebhookEventType) -> Bool {
        state.withLock { $0.endpoints.contains { $0.events.contains(type) } }
    }

    /// See `WebhookRepository.addEndpoint`.
    public func addEndpoint(_ endpoint: WebhookEndpoint) throws {
        try endpoint.validate()
        try state.withLock { (state: inout State) throws(PushStoreError) in
            guard !state.endpoints.contains(where: { $0.id == endpoint.id }) else { throw .duplicateID(endpoint.id) }
            state.endpoints.append(endpoint)
        }
    }

    /// See `WebhookRepository.endpoints`.
    public func endpoints() -> [WebhookEndpoint] { state.withLock { $0.endpoints } }

    /// See `WebhookRepository.endpoint(id:)`.
    public func endpoint(id: String) -> WebhookEndpoint? { state.withLock { $0.endpoints.first { $0.id == id } } }

    /// See `WebhookRepository.removeEndpoint(id:)`.
    public func removeEndpoint(id: String) -> Bool {
        state.withLock { state in
            guard let index = state.endpoints.firstIndex(where: { $0.id == id }) else { return false }
            state.endpoints.remove(at: index)
            state.rows.removeAll { $0.endpointID == id && ($0.state == .pending || $0.state == .inFlight) }
            return true
        }
    }

    /// See `WebhookRepository.replaceConfigured`.
    public func replaceConfigured(_ endpoints: [WebhookEndpoint]) throws {
        for endpoint in endpoints { try endpoint.validate() }
        let listed = Set(endpoints.map(\.id))
        let stale = state.withLock { state in
            state.endpoints.filter { $0.source == .config && !listed.contains($0.id) }.map(\.id)
        }
        for id in stale { _ = removeEndpoint(id: id) }
        state.withLock { state in
            for endpoint in endpoints {
                if let index = state.endpoints.firstIndex(where: { $0.id == endpoint.id }) {
                    state.endpoints[index] = endpoint
                } else {
                    state.endpoints.append(endpoint)
                }
            }
        }
    }

    /// See `WebhookRepository.record`.
    @discardableResult
    public func record(_ events: [WebhookEvent]) -> Int {
        state.withLock { state in
            var added = 0
            for event in events {
                for endpoint in state.endpoints where endpoint.events.contains(event.type) {
                    state.rows.append(
                        WebhookDelivery(
                            eventID: event.id, endpointID: endpoint.id, type: event.type, body: event.stored,
                            state: .pending, attempts: 0, nextAttemptAt: event.occurredAt, lastStatus: nil,
                            lastError: nil, createdAt: event.occurredAt, updatedAt: event.occurredAt))
                    added += 1
                }
            }
            return added
        }
    }

    /// See `WebhookRepository.claim`.
    public func claim(endpointID: String, limit: Int, lease: Duration, now: Date) -> [WebhookDelivery] {
        let now = now.storeNormalized
        return state.withLock { state in
            var claimed: [WebhookDelivery] = []
            for index in state.rows.indices where claimed.count < limit {
                let row = state.rows[index]
                guard row.endpointID == endpointID else { continue }
                let due = row.state == .pending && row.nextAttemptAt <= now
                let abandoned = row.state == .inFlight && (state.leases[Self.key(row)] ?? .distantPast) < now
                guard due || abandoned else { continue }
                state.rows[index].state = .inFlight
                state.rows[index].attempts += 1
                state.rows[index].updatedAt = now
                state.leases[Self.key(row)] = now.addingTimeInterval(lease / .seconds(1))
                claimed.append(state.rows[index])
            }
            return claimed
        }
    }

    /// See `WebhookRepository.complete`.
    public func complete(_ attempts: [WebhookAttempt], retry: WebhookRetryPolicy, now: Date) {
        let now = now.storeNormalized
        state.withLock { state in
            for attempt in attempts {
                guard
                    let index = state.rows.firstIndex(where: {
                        $0.eventID == attempt.eventID && $0.endpointID == attempt.endpointID
                    }), state.rows[index].state == .inFlight, state.rows[index].attempts == attempt.attempt
                else { continue }
                var row = state.rows[index]
                row.lastStatus = attempt.status
                row.updatedAt = now
                if attempt.delivered {
                    row.state = .delivered
                } else {
                    row.lastError = attempt.error
                    (row.state, row.nextAttemptAt) = retry.afterFailure(
                        attempts: row.attempts, id: row.eventID, createdAt: row.createdAt, now: now)
                }
                state.rows[index] = row
                state.leases[Self.key(row)] = nil
            }
        }
    }

    /// See `WebhookRepository.deliveries`.
    public func deliveries(endpointID: String, failedOnly: Bool, limit: Int) -> [WebhookDelivery] {
        state.withLock { state in
            Array(
                state.rows.filter { $0.endpointID == endpointID && (!failedOnly || $0.lastError != nil) }
                    .sorted { ($0.updatedAt, $0.eventID) > ($1.updatedAt, $1.eventID) }.prefix(max(0, limit)))
        }
    }

    /// See `WebhookRepository.counts`.
    public func counts() -> [WebhookDeliveryState: Int] {
        state.withLock { state in
            var counts = Dictionary(uniqueKeysWithValues: WebhookDeliveryState.allCases.map { ($0, 0) })
            for row in state.rows { counts[row.state, default: 0] += 1 }
            return counts
        }
    }

    /// See `WebhookRepository.nextDue`.
    public func nextDue() -> Date? {
        state.withLock { $0.rows.filter { $0.state == .pending }.map(\.nextAttemptAt).min() }
    }

    /// See `WebhookRepository.purge(olderThan:limit:)`.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) -> Int {
        state.withLock { state in
            var removed = 0
            state.rows.removeAll { row in
                guard removed < limit, row.state == .delivered || row.state == .failed, row.updatedAt < date
                else { return false }
                removed += 1
                return true
            }
            return removed
        }
    }
}
