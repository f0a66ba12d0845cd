import PushStore
import PushSync

/// The decoded target lists of the pushes claimed lately, so that the claims that hand out a large push a few
/// hundred notifications at a time read and decode its list once, not once a claim.
///
/// A push's list never changes once stored; an entry is keyed by what names the push (its first `seq`, base,
/// first position and count), so a push stored later under a `seq` that retention freed is never mistaken for
/// the one cached. The cache keeps at most `capacity` targets in all and forgets everything when full.
final class SQLiteTargetCache: Sendable {
    struct Key: Hashable {
        var lo: Int64
        var base: String
        var firstIndex: Int
        var count: Int
    }

    /// Targets kept at most, over every entry.
    let capacity: Int
    private let entries = PThreadLock<(lists: [Key: [OutboxTarget]], targets: Int)>(([:], 0))

    init(capacity: Int = 32_768) {
        self.capacity = capacity
    }

    /// The targets of `push`, from the cache or from `load` (then kept).
    func targets(of push: OutboxPushRecord, load: () throws -> [OutboxTarget]) rethrows -> [OutboxTarget] {
        let key = Key(lo: push.lo, base: push.base, firstIndex: push.firstIndex, count: push.count)
        if let cached = entries.withLock({ $0.lists[key] }) { return cached }
        let targets = try load()
        entries.withLock { entries in
            if entries.targets + targets.count > capacity { entries = ([:], 0) }
            guard targets.count <= capacity else { return }
            entries.lists[key] = targets
            entries.targets += targets.count
        }
        return targets
    }
}
