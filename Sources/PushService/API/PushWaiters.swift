import PushStore

/// Lets `POST /v1/pushes?wait=true` wait until each of its outbox rows reached a terminal state.
///
/// A wait is registered before its rows are enqueued, so no completion can be missed; the worker reports
/// each batch of new states; a deadline ends the wait early.
actor PushWaiters {
    private struct Wait {
        var remaining: Set<String>
        var continuation: CheckedContinuation<Void, Never>?
    }

    private var waits: [Int: Wait] = [:]
    private var waitByRow: [String: Int] = [:]
    private var nextID = 0

    /// True while anyone waits (the worker skips reporting otherwise).
    var isEmpty: Bool { waits.isEmpty }

    /// Starts tracking `rowIDs`; returns the wait's id.
    func register(rowIDs: [String]) -> Int {
        nextID += 1
        waits[nextID] = Wait(remaining: Set(rowIDs))
        for row in rowIDs { waitByRow[row] = nextID }
        return nextID
    }

    /// Suspends until every row of wait `id` is terminal or `timeout` passed.
    func wait(_ id: Int, timeout: Duration) async {
        guard let current = waits[id], !current.remaining.isEmpty else {
            finish(id)
            return
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.finish(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waits[id]?.continuation = continuation
        }
        timer.cancel()
    }

    /// Records new row states from the worker.
    func completed(_ states: [String: OutboxState]) {
        var done: Set<Int> = []
        for (row, state) in states where state.isTerminal {
            guard let id = waitByRow.removeValue(forKey: row) else { continue }
            waits[id]?.remaining.remove(row)
            if waits[id]?.remaining.isEmpty == true { done.insert(id) }
        }
        for id in done where waits[id]?.continuation != nil { finish(id) }
    }

    /// Ends wait `id` (resuming its waiter) and forgets it.
    func finish(_ id: Int) {
        guard let wait = waits.removeValue(forKey: id) else { return }
        for row in wait.remaining { waitByRow[row] = nil }
        wait.continuation?.resume()
    }
}
