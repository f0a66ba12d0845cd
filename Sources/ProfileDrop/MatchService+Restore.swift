import Foundation
import PushStore

extension MatchService {
    /// Creates a service over one store's repositories, with an `OutboxMateRequestNotifier` on its devices
    /// and outbox (pushing only devices registered for `topic`, when given).
    public init(
        repositories: PushRepositories, condition: DropCondition = .default, topic: String? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            drops: repositories.drops, mateRequests: repositories.mateRequests, users: repositories.users,
            notifier: OutboxMateRequestNotifier(
                devices: repositories.devices, outbox: repositories.outbox,
                topic: topic),
            condition: condition, clock: clock)
    }

    /// Rebuilds engagements from the stored pending drops (call once at start, before serving).
    ///
    /// A drop with stored mate requests was mid-match when the last run stopped: its match is finished.
    /// A drop past its window expires. A drop whose user is already engaged by an older one expires too.
    /// Returns how many pending drops engage users afterwards.
    @discardableResult
    public func restore() async throws -> Int {
        await enterGate()
        defer { leaveGate() }
        pending = [:]
        engaged = [:]
        decided = []
        let now = clock()
        for drop in try await drops.pending() {
            let wasDecided = !(try await mateRequests.requests(forDrop: drop.id).isEmpty)
            let conflicts = engaged[drop.initiatorID] != nil || engaged[drop.peerID] != nil
            if wasDecided {
                decided.insert(drop.id)
                _ = try await completeMatch(drop, now: now)
            } else if conflicts || now > drop.expiresAt {
                _ = try await settle(drop, now: now)
            } else {
                engage(drop)
            }
        }
        return pending.count
    }
}
