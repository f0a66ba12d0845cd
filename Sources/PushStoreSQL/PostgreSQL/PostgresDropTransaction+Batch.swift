import Foundation
import PushStore

/// The steps of an operation decided in a group's batch (`PostgresDropBatch`): reads answered from the
/// group's read as the operations before it changed it, writes staged for the group's round trip. A step the
/// read does not answer throws `PostgresDropBatch.Unbatchable`.
extension PostgresDropTransaction {
    private typealias Pair = PostgresDropBatch.Pair

    /// The staged view and writes; only called in a batch.
    private var batch: PostgresDropBatch.Staged {
        get { staged! }
        set { staged = newValue }
    }

    /// `ms` in whole milliseconds, rounded up (as a report's window is given to the database).
    private static func millis(_ duration: Duration) -> Int64 { Int64((duration / .milliseconds(1)).rounded(.up)) }

    func batchNow(given: Date) -> Date { clock == .database ? batch.view.now : given }

    func batchReportState(reporter: String, peer: String, window: Duration, given: Date) throws -> DropReportState {
        let now = batchNow(given: given)
        let since = now.storeMillis - Self.millis(window)
        return DropReportState(
            now: now, pending: try batchPendingDrops(engaging: [reporter, peer]),
            latestMatch: try batchLatestMatch(Pair(reporter, peer), sinceMillis: since))
    }

    func batchPendingDrops(engaging userIDs: [String]) throws -> [String: DropRecord] {
        let view = batch.view
        guard userIDs.allSatisfy(view.users.contains) else { throw PostgresDropBatch.Unbatchable() }
        return view.pending.filter { userIDs.contains($0.key) }
    }

    func batchLatestMatch(between first: String, and second: String, since: Date) throws -> DropRecord? {
        try batchLatestMatch(Pair(first, second), sinceMillis: since.storeMillis)
    }

    /// The pair's latest match at or after `sinceMillis`, when the group read it that far back.
    private func batchLatestMatch(_ pair: Pair, sinceMillis: Int64) throws -> DropRecord? {
        let view = batch.view
        guard view.pairs.contains(pair), sinceMillis >= view.matchesSince else { throw PostgresDropBatch.Unbatchable() }
        guard let match = view.latestMatch[pair], let at = match.matchedAt, at.storeMillis >= sinceMillis else { return nil }
        return match
    }

    func batchRequests(forDrop dropID: String) throws -> [MateRequestRecord] {
        guard let requests = batch.view.requests[dropID] else { throw PostgresDropBatch.Unbatchable() }
        return requests
    }

    func batchUsersWithActiveDevices(_ ids: [String]) throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]]) {
        let view = batch.view
        guard ids.allSatisfy(view.people.contains) else { throw PostgresDropBatch.Unbatchable() }
        return (view.found.filter { ids.contains($0.key) }, view.devices.filter { ids.contains($0.key) })
    }

    /// Stages a new pending drop engaging both its users (neither engaged: the rules read so).
    mutating func batchInsertPending(_ drop: DropRecord) throws {
        let users = [drop.initiatorID, drop.peerID]
        guard users.allSatisfy({ batch.view.users.contains($0) && batch.view.pending[$0] == nil }),
            !batch.writes.created.contains(where: { $0.id == drop.id })
        else { throw PostgresDropBatch.Unbatchable() }
        batch.writes.created.append(drop)
        for user in users { batch.view.pending[user] = drop }
    }

    /// Stages the new state of a drop the view has pending: its users freed; a drop new in the group is
    /// written once, in this state.
    mutating func batchClose(_ drop: DropRecord) throws {
        let engaged = batch.view.pending.filter { $0.value.id == drop.id }.map(\.key)
        guard !engaged.isEmpty else { throw PostgresDropBatch.Unbatchable() }
        for user in engaged { batch.view.pending[user] = nil }
        if let index = batch.writes.created.firstIndex(where: { $0.id == drop.id }) {
            batch.writes.created[index] = drop
        } else {
            batch.writes.closed.append(drop)
        }
    }

    /// Stages a match with its mate requests: the pair's latest match from now on.
    mutating func batchMatch(_ drop: DropRecord, requests: [MateRequestRecord]) throws {
        for request in requests { try request.validate() }
        try batchClose(drop)
        batch.writes.requests += requests
        batch.view.requests[drop.id] = requests
        batch.view.latestMatch[Pair(drop.initiatorID, drop.peerID)] = drop
    }

    mutating func batchEnqueue(_ items: [OutboxItem]) {
        batch.writes.items += items
    }
}
