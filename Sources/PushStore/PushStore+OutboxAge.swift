import Foundation

extension PushStore {
    /// When the oldest notification still to be sent (queued or in flight) was enqueued; nil when none is.
    ///
    /// Rows are numbered in enqueue order, so the lowest pending `seq` is the oldest one: SQLite finds it by
    /// walking the state table in `seq` order up to the first pending row, without sorting.
    public func oldestPendingEnqueuedAt() throws -> Date? {
        try connection.query("""
            SELECT i.created_at FROM outbox_items i
            WHERE i.seq = (SELECT min(seq) FROM outbox_state WHERE state IN ('queued', 'in_flight'))
            """) { Date(storeMillis: $0.int64(at: 0)) }.first
    }
}
