import Foundation
import PushStore

extension OutboxWorker {
    /// Whether claims lapse in this store, so that the worker must renew the ones it holds.
    var renewsLeases: Bool { outbox.leaseRenewalInterval != nil }

    /// Records rows just claimed as held, leased in the current round.
    func hold(_ items: [OutboxItem]) {
        for item in items { held[item.id] = (item.attempts, renewalRound) }
    }

    /// Renews the lease of every claim still held that was leased before the previous round (at least one
    /// interval ago; newer ones have two thirds of their lease left or more): a row a live
    /// instance is still sending (waiting behind a stream limit, or for a slow answer) is never claimed
    /// again by another instance. Holds found taken over (this instance was stalled past a whole lease)
    /// are counted as lost and dropped: their outcome will be stale, and the row was sent again elsewhere.
    /// Returns how many were renewed.
    @discardableResult
    func renewHeld(now: Date) async -> Int {
        let round = renewalRound
        renewalRound += 1
        let due = held.compactMap { id, hold in hold.round < round ? OutboxHold(id: id, attempt: hold.attempt) : nil }
        guard !due.isEmpty else {
            leaseRenewalFailures = 0
            return 0
        }
        let renewed: Set<String>
        do {
            renewed = try await outbox.renewLeases(due, now: now)
        } catch {
            // The holds stay as they are (leased in an earlier round), so the next round renews them again.
            leaseRenewalFailures += 1
            logger.error("outbox.lease_renewal_failed", [("error", "\(error)"), ("rows", "\(due.count)")])
            return 0
        }
        leaseRenewalFailures = 0
        var lost = 0
        for hold in due {
            if renewed.contains(hold.id) {
                if held[hold.id]?.attempt == hold.attempt { held[hold.id]?.round = renewalRound }
            } else if held[hold.id]?.attempt == hold.attempt {
                // Still held, so not being completed: another instance claimed it after its lease ran out.
                held[hold.id] = nil
                lost += 1
            }
        }
        metrics.recordLeaseRenewals(renewed: renewed.count, lost: lost)
        if lost > 0 { logger.warning("outbox.leases_lost", [("rows", "\(lost)")]) }
        return renewed.count
    }
}
