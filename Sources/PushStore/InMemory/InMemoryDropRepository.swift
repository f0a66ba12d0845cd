public import Foundation

/// `DropRepository` and `MateRequestRepository` in memory, with the same rules as the SQLite ones (for
/// tests). One actor holds drops, engagements and mate requests, so the drop rules run on them without a
/// suspension; the outbox rows a match or an answer makes go to `outbox` right after, before the call returns.
public actor InMemoryDropRepository: DropRepository, MateRequestRepository {
    private var tables = Tables()
    private let outbox: any OutboxRepository
    private let webhooks: InMemoryWebhookRepository?

    /// Empty tables whose pushes are queued in `outbox` and whose events (mate requests created and
    /// answered) go to `webhooks`.
    public init(outbox: any OutboxRepository, webhooks: InMemoryWebhookRepository? = nil) {
        self.outbox = outbox
        self.webhooks = webhooks
        tables.webhooks = webhooks
    }

    /// See `DropRepository.withDropTransaction`: `body` runs on the tables without a suspension (the actor is
    /// the lock), then the outbox rows it queued go to `outbox`, before the call returns.
    public func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        let value = try runRules(body)
        try await flushOutbox()
        return value
    }

    /// Runs `body` on the tables. They move into the transaction and back, so the rules change them in place;
    /// the transaction is gone when this returns, before `flushOutbox` suspends: the actor is reentrant there,
    /// and a transaction still holding the tables would make the next report's writes copy whole dictionaries.
    private func runRules<T>(_ body: (inout any DropTransaction) throws -> T) throws -> T {
        var tx: any DropTransaction = tables
        tables = Tables()
        let result: Result<T, any Error> = Result { try body(&tx) }
        if let changed = tx as? Tables { tables = changed }
        return try result.get()
    }

    /// See `DropRepository.pending`.
    public func pending() -> [DropRecord] {
        Set(tables.engaged.values).compactMap { tables.drops[$0] }.filter { $0.state == .pending }.sorted {
            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
        }
    }

    /// See `DropRepository.drop(id:)`.
    public func drop(id: String) -> DropRecord? { tables.drops[id] }

    /// See `MateRequestRepository.answer`.
    public func answer(
        id: String, accept: Bool, by userID: String, at now: Date,
        pushes: @Sendable (_ answered: MateRequestRecord) -> [OutboxItem]
    ) async throws -> MateRequestRecord {
        guard var request = tables.requests[id] else { throw PushStoreError.notFound("mate request \(id)") }
        try MateRequestAnswer.apply(accept: accept, by: userID, at: now, to: &request)
        let items = pushes(request)
        for item in items { try item.validate() }
        tables.requests[id] = request
        tables.outbox += items
        webhooks?.record([WebhookEvents.answered(request)])
        try await flushOutbox()
        return request
    }

    /// See `MateRequestRepository.requests(forUser:role:)`.
    public func requests(forUser userID: String, role: MateRequestRole) -> [MateRequestRecord] {
        Tables.sorted(
            tables.requests.values.filter { request in
                switch role {
                case .recipient: return request.recipientID == userID
                case .sender: return request.senderID == userID
                case .any: return request.recipientID == userID || request.senderID == userID
                }
            })
    }

    /// See `MateRequestRepository.requests(forDrop:)`.
    public func requests(forDrop dropID: String) -> [MateRequestRecord] { tables.requests(forDrop: dropID) }

    /// See `MateRequestRepository.request(id:)`.
    public func request(id: String) -> MateRequestRecord? { tables.requests[id] }

    /// See `MateRequestRepository.purgeAnswered`.
    public func purgeAnswered(olderThan date: Date, limit: Int) -> Int {
        let ids = tables.requests.values.filter { $0.state != .pending && ($0.answeredAt ?? .distantFuture) < date }
            .prefix(max(0, limit)).map(\.id)
        for id in ids { tables.removeRequest(id: id) }
        return ids.count
    }

    /// See `DropRepository.purgeEnded`.
    public func purgeEnded(olderThan date: Date, limit: Int) -> Int {
        let ids = tables.drops.values.filter { drop in
            drop.state != .pending && (drop.closedAt ?? drop.matchedAt ?? .distantFuture) < date
                && (tables.requestsByDrop[drop.id] ?? []).isEmpty
        }.prefix(max(0, limit)).map(\.id)
        for id in ids { tables.removeDrop(id: id) }
        return ids.count
    }

    /// Hands the rows the rules queued to the outbox.
    private func flushOutbox() async throws {
        guard !tables.outbox.isEmpty else { return }
        let items = tables.outbox
        tables.outbox = []
        try await outbox.enqueue(items)
    }

    /// The tables, as the drop rules read and write them.
    struct Tables: DropTransaction {
        var drops: [String: DropRecord] = [:]
        var engaged: [String: String] = [:]
        var requests: [String: MateRequestRecord] = [:]
        /// The matched drops of each user (as initiator or peer), so a report reads its users' matches
        /// without a scan of every drop.
        var matchesByUser: [String: [String]] = [:]
        /// The mate requests of each drop.
        var requestsByDrop: [String: [String]] = [:]
        /// Rows queued by the rules, not yet handed to the outbox.
        var outbox: [OutboxItem] = []
        /// Where mate-request events go.
        var webhooks: InMemoryWebhookRepository?

        static func sorted(_ list: [MateRequestRecord]) -> [MateRequestRecord] {
            list.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }

        func pendingDrops(engaging userIDs: [String]) -> [String: DropRecord] {
            var found: [String: DropRecord] = [:]
            for user in userIDs { found[user] = engaged[user].flatMap { drops[$0] } }
            return found
        }

        func latestMatch(between first: String, and second: String, since: Date) -> DropRecord? {
            latestMatch(of: first, since: since) { $0.initiatorID == second || $0.peerID == second }
        }

        func latestMatch(of userID: String, since: Date) -> DropRecord? {
            latestMatch(of: userID, since: since) { _ in true }
        }

        private func latestMatch(of userID: String, since: Date, where matches: (DropRecord) -> Bool) -> DropRecord? {
            (matchesByUser[userID] ?? []).compactMap { drops[$0] }
                .filter { $0.state == .matched && ($0.matchedAt ?? .distantPast) >= since && matches($0) }
                .max { ($0.matchedAt ?? .distantPast, $0.id) < ($1.matchedAt ?? .distantPast, $1.id) }
        }

        func requests(forDrop dropID: String) -> [MateRequestRecord] {
            Self.sorted((requestsByDrop[dropID] ?? []).compactMap { requests[$0] })
        }

        /// Deletes a drop (purged), with its place in `matchesByUser`.
        mutating func removeDrop(id: String) {
            guard let drop = drops.removeValue(forKey: id) else { return }
            for user in [drop.initiatorID, drop.peerID] {
                matchesByUser[user]?.removeAll { $0 == id }
                if matchesByUser[user]?.isEmpty == true { matchesByUser[user] = nil }
            }
        }

        /// Deletes a mate request (purged), with its place in `requestsByDrop`.
        mutating func removeRequest(id: String) {
            guard let request = requests.removeValue(forKey: id) else { return }
            requestsByDrop[request.dropID]?.removeAll { $0 == id }
            if requestsByDrop[request.dropID]?.isEmpty == true { requestsByDrop[request.dropID] = nil }
        }

        mutating func insertPending(_ drop: DropRecord) throws {
            guard drops[drop.id] == nil else { throw PushStoreError.duplicateID(drop.id) }
            precondition(engaged[drop.initiatorID] == nil && engaged[drop.peerID] == nil, "the rules engage free users only")
            drops[drop.id] = drop
            engaged[drop.initiatorID] = drop.id
            engaged[drop.peerID] = drop.id
        }

        mutating func close(_ drop: DropRecord) throws {
            guard drops[drop.id]?.state == .pending else {
                throw PushStoreError.invalidTransition(dropID: drop.id, from: "not pending", to: drop.state.rawValue)
            }
            drops[drop.id] = drop
            for user in [drop.initiatorID, drop.peerID] where engaged[user] == drop.id { engaged[user] = nil }
            if drop.state == .matched {
                matchesByUser[drop.initiatorID, default: []].append(drop.id)
                matchesByUser[drop.peerID, default: []].append(drop.id)
            }
        }

        mutating func insert(_ new: [MateRequestRecord]) throws {
            for request in new {
                try request.validate()
                guard requests[request.id] == nil else { throw PushStoreError.duplicateID(request.id) }
                requests[request.id] = request
                requestsByDrop[request.dropID, default: []].append(request.id)
            }
            if let webhooks, webhooks.wants(.mateRequestCreated) {
                webhooks.record(new.map { WebhookEvents.mateRequest($0, type: .mateRequestCreated) })
            }
        }

        mutating func enqueue(_ items: [OutboxItem]) { outbox += items }

        func pendingDrops(expiringBefore now: Date) -> [DropRecord] {
            // Every pending drop engages its two users: the pending ones are those `engaged` names.
            Set(engaged.values).compactMap { drops[$0] }.filter { $0.state == .pending && $0.expiresAt < now }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }
}
