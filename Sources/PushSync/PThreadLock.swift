#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: the one lock type of the package.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer understands pthread mutexes,
/// while `Mutex` locks through an uninstrumented futex path, so every value it guards shows up as a
/// false data race. Keep `body` short and never call back into code that may take the same lock.
///
/// Keep a closure in a struct rather than as `Value` itself: the generic storage holds a function at its
/// most general abstraction, and each `inout` access reabstracts it out and back, wrapping it in two more
/// thunks, so every call through it grows slower (after 10,000 reads one call took over 100 µs).
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, which holds the pthread mutex for
/// the whole access, so any thread may share the lock.
public final class PThreadLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, out of line: the mutex already makes access exclusive, and a stored property would add
    /// the runtime's own exclusivity check (a lookup in a per-thread access set) to every `withLock`.
    private let value: UnsafeMutablePointer<Value>

    /// A lock guarding `value`.
    public init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
