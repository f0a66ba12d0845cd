import Foundation
import PushStore

extension MatchService {
    /// Expires every pending drop older than the window (state `expired`, both users freed, nothing pushed)
    /// and forgets matches older than the window. Call it from a timer; reports, cancels and status also
    /// expire the drops they touch. Returns the drops expired.
    @discardableResult
    public func expireDue() async throws -> [DropRecord] {
        await enterGate()
        defer { leaveGate() }
        let now = clock()
        let due = pending.values.filter { now > $0.expiresAt }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        var expired: [DropRecord] = []
        for drop in due {
            if let record = try await settle(drop, now: now) { expired.append(record) }
        }
        for (pair, done) in recentMatches where isStale(done, now: now) {
            recentMatches[pair] = nil
            for user in [pair.low, pair.high] where lastMatch[user] == pair { lastMatch[user] = nil }
        }
        return expired
    }

    /// Settles the drop engaging `userID` if its window has passed.
    func settleIfDue(userID: String, now: Date) async throws {
        guard let dropID = engaged[userID], let drop = pending[dropID], now > drop.expiresAt else { return }
        _ = try await settle(drop, now: now)
    }

    /// Ends a pending drop whose window passed: a decided match is finished, anything else expires.
    /// Returns the expired record, or nil if it matched instead.
    func settle(_ drop: DropRecord, now: Date) async throws -> DropRecord? {
        if decided.contains(drop.id) {
            _ = try await completeMatch(drop, now: now)
            return nil
        }
        let expired: DropRecord
        do {
            expired = try await drops.update(id: drop.id, to: .expired, at: now)
        } catch PushStoreError.invalidTransition {
            release(drop)  // the store moved on already; it is the truth
            return nil
        }
        release(drop)
        metrics.expiries += 1
        return expired
    }

    /// The pair's match if it happened within the last window.
    func recentMatch(_ pair: DropPair, now: Date) -> MatchedDrop? {
        guard let done = recentMatches[pair], !isStale(done, now: now) else { return nil }
        return done
    }

    private func isStale(_ done: MatchedDrop, now: Date) -> Bool {
        let matchedAt = done.drop.matchedAt ?? done.drop.createdAt
        return now > matchedAt.addingTimeInterval(condition.window)
    }
}
