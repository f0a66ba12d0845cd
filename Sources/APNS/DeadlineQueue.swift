/// The request deadlines of a client's sends, in the order they were submitted (which is deadline order:
/// every send gets the same timeout), for the dispatcher's sweep timer.
///
/// An entry is only useful while its send is live. Most sends are answered within milliseconds of a
/// 30-second deadline, so the sweep drops the finished ones at the head as well as the expired ones:
/// what is kept runs from the oldest send still live to the newest, not the last 30 seconds of sends
/// (at 20,000 notifications/s that was up to 1.2 million entries, 17 MB, held for as long as the load
/// lasted). Storage is compacted once most of it is behind the head, and handed back when it is four
/// times larger than what is kept. Confined to the dispatcher's loop thread.
struct DeadlineQueue {
    private var entries: [(deadline: ContinuousClock.Instant, id: UInt64)] = []
    private var head = 0

    /// Entries below this many are never compacted or shrunk: small buffers are not worth the copy.
    static let minimumCompaction = 1_024

    /// Entries kept (live sends, and finished ones not yet passed by a sweep).
    var count: Int { entries.count - head }
    /// Entries the storage holds room for.
    var capacity: Int { entries.capacity }

    /// Adds the deadline of a send just submitted.
    mutating func append(deadline: ContinuousClock.Instant, id: UInt64) {
        entries.append((deadline, id))
    }

    /// Removes every entry at the head whose send finished (`isLive` false) or whose deadline is at or
    /// before `now`, and returns the ids of the live sends past their deadline, oldest first. Stops at the
    /// first live send not yet due.
    mutating func sweep(now: ContinuousClock.Instant, isLive: (UInt64) -> Bool) -> [UInt64] {
        var expired: [UInt64] = []
        while head < entries.count {
            let (deadline, id) = entries[head]
            let live = isLive(id)
            if live && deadline > now { break }
            head += 1
            if live { expired.append(id) }
        }
        compact()
        return expired
    }

    private mutating func compact() {
        guard head > Self.minimumCompaction, head * 2 > entries.count else { return }
        let kept = entries.count - head
        if entries.capacity > 4 * max(kept, Self.minimumCompaction) {
            entries = Array(entries[head...])  // a buffer of the size kept: the rest goes back to the allocator
        } else {
            entries.removeFirst(head)
        }
        head = 0
    }
}
