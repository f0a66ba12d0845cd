/// A value that belongs to one event loop's thread, in a wrapper that may cross threads: every read and
/// write of ``value`` checks that it runs on that thread and stops the process otherwise.
///
/// Use it where a loop-confined object, which is not `Sendable` itself, has to be carried by a job handed
/// to its loop or held by a `Sendable` owner that other threads call: the object stays non-`Sendable`, so
/// the compiler keeps it from being shared any other way, and the wrapper checks at run time the one
/// thing the compiler cannot, that it is used on its loop's thread. The check is one comparison of
/// thread identities (``EventLoop/preconditionInEventLoop(file:line:)``).
///
/// ```swift
/// let bound = LoopBound(handingOver: Dispatcher(), to: loop)   // made here, used only on the loop
/// loop.execute { bound.value.submit(work) }                    // checked: runs on the loop thread
/// ```
///
/// `@unchecked Sendable`: the value is reached only through ``value``, which checks the thread.
public struct LoopBound<Value>: @unchecked Sendable {
    /// The loop whose thread may use the value.
    public let loop: EventLoop
    @usableFromInline var stored: Value

    /// Wraps `value`, which already belongs to `loop`; call on `loop`'s thread.
    @inlinable
    public init(_ value: Value, loop: EventLoop) {
        loop.preconditionInEventLoop()
        self.loop = loop
        stored = value
    }

    /// Wraps a value made on another thread and handed over whole (nothing else refers to it, which
    /// `sending` makes the compiler check): from now on only `loop`'s thread uses it. Call on any thread.
    @inlinable
    public init(handingOver value: sending Value, to loop: EventLoop) {
        self.loop = loop
        stored = value
    }

    /// The value; read and written on `loop`'s thread only.
    @inlinable
    public var value: Value {
        get {
            loop.preconditionInEventLoop()
            return stored
        }
        set {
            loop.preconditionInEventLoop()
            stored = newValue
        }
    }
}
