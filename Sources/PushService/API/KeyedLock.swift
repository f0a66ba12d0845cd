/// One holder per key at a time, the others waiting in arrival order: same-key requests in this process
/// take turns, so exactly one of several concurrent repeats runs and the others replay its answer.
actor KeyedLock {
    private var queues: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Waits until this caller holds `key`.
    func lock(_ key: String) async {
        guard queues[key] != nil else {
            queues[key] = []
            return
        }
        await withCheckedContinuation { queues[key, default: []].append($0) }
    }

    /// Hands `key` to the next waiter, or frees it.
    func unlock(_ key: String) {
        guard var waiting = queues[key], !waiting.isEmpty else {
            queues[key] = nil
            return
        }
        let next = waiting.removeFirst()
        queues[key] = waiting
        next.resume()
    }
}
