import PushSync

/// Holds the mock view once the launcher has one (set after the server starts).
final class ConsoleMockBox: Sendable {
    private let current = PThreadLock<ConsoleMockView?>(nil)

    var view: ConsoleMockView? { current.withLock { $0 } }

    func set(_ view: ConsoleMockView?) {
        current.withLock { $0 = view }
    }
}
