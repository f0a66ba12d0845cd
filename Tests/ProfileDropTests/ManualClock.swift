import APNSCore
import Foundation
import PushSync

/// A clock tests move by hand, so expiry is tested without waiting.
final class ManualClock: Sendable {
    private let current: PThreadLock<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = PThreadLock(start)
    }

    /// The current time.
    var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    func advance(_ seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The closure `MatchService` takes.
    var closure: @Sendable () -> Date { { self.now } }
}
