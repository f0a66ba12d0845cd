import PushStore
import PushSync

/// The decoded target lists of the pushes this instance claimed lately, so that the claims that hand out a
/// large push a few hundred notifications at a time have the server send its list, and decode it, once: a
/// claim names the pushes whose lists it holds (`PostgresOutboxPush.coveringSQL`), and the server sends no
/// list for those.
///
/// A push's list never changes once stored; an entry is found by the push's first `seq` and used only for the
/// push stored under the same base, first position and count (else the list is read again), so a push stored
/// later under a `seq` that retention freed is never mistaken for the one cached. The cache keeps at most
/// `capacity` targets in all and forgets everything when full.
final class PostgresTargetCache: Sendable {
    /// What names a push beside its `lo`.
    struct Key: Equatable {
        var base: String
        var firstIndex: Int
        var count: Int
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

    /// Keeps `targets`, the list of the push at `lo` named by `key`, just read from the server.
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

    /// How many lists were read from the server and decoded so far (for tests).
    var listsRead: Int { state.withLock { $0.listsRead } }
}
