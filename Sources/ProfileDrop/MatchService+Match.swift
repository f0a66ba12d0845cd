import Foundation
import PushStore

extension MatchService {
    /// The id of the mate request the drop's initiator receives (carrying the peer's card).
    public nonisolated static func requestIDToInitiator(dropID: String) -> String { "\(dropID).initiator" }
    /// The id of the mate request the drop's peer receives (carrying the initiator's card).
    public nonisolated static func requestIDToPeer(dropID: String) -> String { "\(dropID).peer" }

    /// Turns a pending drop into a match. Writes, in order: both mate requests, their outbox rows (through the
    /// notifier), the drop's `matched` state; only then memory changes. Every step is idempotent (fixed request
    /// ids, the notifier skips queued requests), so a failed or crashed attempt is finished by the next one.
    func completeMatch(_ drop: DropRecord, now: Date) async throws -> MatchedDrop {
        let (initiatorCard, peerCard) = try await cards(drop.initiatorID, drop.peerID)
        decided.insert(drop.id)
        let toInitiator = try await storeRequest(
            MateRequestRecord(
                id: Self.requestIDToInitiator(dropID: drop.id), dropID: drop.id, senderID: drop.peerID,
                recipientID: drop.initiatorID, createdAt: now))
        let toPeer = try await storeRequest(
            MateRequestRecord(
                id: Self.requestIDToPeer(dropID: drop.id), dropID: drop.id, senderID: drop.initiatorID,
                recipientID: drop.peerID, createdAt: now))
        try await notifier.notifyMateRequests(
            [
                MateRequestNotice(request: toInitiator, senderCard: peerCard),
                MateRequestNotice(request: toPeer, senderCard: initiatorCard),
            ], at: now)
        let matched = try await markMatched(drop, now: now)
        release(drop)
        let done = MatchedDrop(drop: matched, requests: [toInitiator, toPeer])
        let pair = DropPair(drop)
        recentMatches[pair] = done
        lastMatch[drop.initiatorID] = pair
        lastMatch[drop.peerID] = pair
        metrics.matches += 1
        return done
    }

    /// Inserts `request`, or returns the stored one if an earlier attempt inserted it.
    private func storeRequest(_ request: MateRequestRecord) async throws -> MateRequestRecord {
        do {
            try await mateRequests.insert(request)
            return request
        } catch PushStoreError.duplicateID(let id) {
            guard let stored = try await mateRequests.request(id: id) else { throw PushStoreError.duplicateID(id) }
            return stored
        }
    }

    /// Moves the drop to matched, accepting a store that already has it matched.
    private func markMatched(_ drop: DropRecord, now: Date) async throws -> DropRecord {
        do {
            return try await drops.update(id: drop.id, to: .matched, at: now)
        } catch PushStoreError.invalidTransition {
            guard let stored = try await drops.drop(id: drop.id), stored.state == .matched else { throw MatchStateError(drop.id) }
            return stored
        }
    }
}

/// The store holds a drop the service believes pending in a state other than pending or matched.
struct MatchStateError: Error, CustomStringConvertible {
    let dropID: String
    init(_ dropID: String) { self.dropID = dropID }
    var description: String { "drop \(dropID) is no longer pending in the store" }
}
