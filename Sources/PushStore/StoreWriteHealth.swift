import Foundation
import PushSync

/// Whether the store can write, as its last writes showed: a write refused for space
/// (`PushStoreError.storageFull`) marks it unable to write for `hold`, and each refusal starts that
/// time again. While writes keep being refused (new pushes, the outbox worker retrying the outcomes it
/// keeps), it stays unable to write; once they succeed it is able again at most `hold` after the last
/// refusal. `/healthz` answers 503 while it is unable, so a balancer drains the instance.
///
/// Time-based on purpose: a full filesystem can still take some writes (SQLite reuses its WAL's pages,
/// PostgreSQL its free space), so one write that succeeds says little, and a drained instance that gets no
/// writes must not stay out forever. Safe from any thread.
public final class StoreWriteHealth: Sendable {
    private struct State {
        var lastRefusal: ContinuousClock.Instant?
        var storageFullFailures = 0
    }

    private let state = PThreadLock(State())
    /// How long after a write refused for space the store counts as unable to write.
    public let hold: Duration

    /// A tracker with nothing refused yet.
    public init(hold: Duration = .seconds(5)) {
        self.hold = hold
    }

    /// Counts a write refused for space.
    public func recordStorageFull() {
        state.withLock {
            $0.lastRefusal = .now
            $0.storageFullFailures += 1
        }
    }

    /// Writes refused for space so far.
    public var storageFullFailures: Int { state.withLock { $0.storageFullFailures } }

    /// False within `hold` of the last write refused for space.
    public var writable: Bool {
        guard let last = state.withLock({ $0.lastRefusal }) else { return true }
        return ContinuousClock.now - last >= hold
    }
}
