import PushStore
import PushSync

/// The decoded target lists of the pushes this instance claimed lately, so that the claims that hand out a
/// large push a few hundred notifications at a time read and decode its list once, not once a claim. SQLite
/// looks a list up as it reads a push (`targets(of:load:)`); on PostgreSQL a claim names the pushes whose
/// lists it holds (`entries`, `PostgresOutboxPush.coveringSQL`), the server sends no list for those, and the
/// lists it does send are kept (`store`).
///
/// A push's list never changes once stored; an entry is found by the push's first `seq` and used only for the
/// push stored under the same base, first position and count (else the list is read again), so a push stored
/// later under a `seq` that retention freed is never mistaken for the one cached. The cache keeps at most
/// `capacity` targets in all and forgets everything when full.
final class OutboxTargetCache: Sendable {
    /// What names a push beside its `lo`.
    struct Key: Equatable {
        var base: String
        var firstIndex: Int
        var count: Int

        init(base: String, firstIndex: Int, count: Int) {
            self.base = base
            self.firstIndex = firstIndex
            self.count = count
        }

        init(_ push: OutboxPushRecord) {
            self.init(base: push.base, firstIndex: push.firstIndex, count: push.count)
        }
    }

    /// A cached list and the push it belongs to.
    struct Entry {
        var key: Key
        var targets: [OutboxTarget]
    }

    /// Targets kept at most, over every entry.
    let capacity: Int
    private let state = PThreadLock<(entries: [Int64: Entry], targets: Int, listsRead: Int)>(([:], 0, 0))

    init(capacity: Int = 32_768) {
        self.capacity = capacity
    }

    /// The entries now, by `lo`: what a claim names to the server and then reads its lists from (a snapshot,
    /// so an entry named is still there when its push's row comes back).
    var entries: [Int64: Entry] { state.withLock { $0.entries } }

    /// The targets of `push`, from the cache or from `load` (then kept).
    func targets(of push: OutboxPushRecord, load: () throws -> [OutboxTarget]) rethrows -> [OutboxTarget] {
        let key = Key(push)
        if let entry = state.withLock({ $0.entries[push.lo] }), entry.key == key { return entry.targets }
        let targets = try load()
        store(lo: push.lo, key: key, targets: targets)
        return targets
    }

    /// Keeps `targets`, the list of the push at `lo` named by `key`, just read.
    func store(lo: Int64, key: Key, targets: [OutboxTarget]) {
        state.withLock { state in
            state.listsRead += 1
            if state.targets + targets.count > capacity { state = ([:], 0, state.listsRead) }
            guard targets.count <= capacity else { return }
            if let old = state.entries.updateValue(Entry(key: key, targets: targets), forKey: lo) {
                state.targets -= old.targets.count
            }
            state.targets += targets.count
        }
    }

    /// How many lists were read and decoded so far (for tests).
    var listsRead: Int { state.withLock { $0.listsRead } }
}
