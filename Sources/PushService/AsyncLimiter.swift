/// At most `limit` holders at once; `acquire` waits in arrival order for a free place.
actor AsyncLimiter {
    private let limit: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place, waiting for one if all are held.
    func acquire() async {
        if holders < limit {
            holders += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a place back, handing it straight to the oldest waiter if there is one.
    func release() {
        if waiting.isEmpty {
            holders -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `body` while holding a place.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }
}
