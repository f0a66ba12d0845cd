internal import CEvent

/// A one-shot or repeating timer on an event loop. Create, schedule and cancel it on the loop thread only.
///
/// `@unchecked Sendable`: confined to its loop's thread, which every entry point checks
/// (`preconditionInEventLoop`); the type is Sendable only so loop jobs can carry it (to let it go on a
/// later turn).
public final class LoopTimer: @unchecked Sendable {
    private var event: OpaquePointer?
    /// Held so the event base outlives this timer's event.
    private let loop: EventLoop
    private let action: () -> Void
    private let repeating: Bool

    /// A timer that calls `action` on `loop`'s thread each time it fires.
    public init(loop: EventLoop, repeating: Bool = false, action: @escaping () -> Void) {
        loop.preconditionInEventLoop()
        self.loop = loop
        self.action = action
        self.repeating = repeating
        let context = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(
            loop.base, -1, repeating ? Int16(EV_PERSIST) : 0,
            { _, _, context in
                Unmanaged<LoopTimer>.fromOpaque(context!).takeUnretainedValue().action()
            }, context)
    }

    deinit {
        if let event { event_free(event) }
    }

    /// Fires after `delay` (and every `delay` after that when repeating); re-arming replaces the previous schedule.
    /// A negative delay fires at once.
    public func schedule(after delay: Duration) {
        loop.preconditionInEventLoop()
        guard let event else { return }
        let (seconds, attoseconds) = max(delay, .zero).components
        var interval = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        event_add(event, &interval)
    }

    /// Stops the timer; it can be scheduled again.
    public func cancel() {
        loop.preconditionInEventLoop()
        guard let event else { return }
        event_del(event)
    }

    /// True while the timer is scheduled.
    public var isScheduled: Bool {
        loop.preconditionInEventLoop()
        guard let event else { return false }
        return event_pending(event, Int16(EV_TIMEOUT), nil) != 0
    }
}
