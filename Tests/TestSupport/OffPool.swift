import Foundation

/// Runs the blocking `body` (a read on a socket, a wait for a child process) on a thread of its own and
/// returns its result, so the wait never holds one of the concurrency pool's threads: there are as many as
/// cores (two here), and a server in the same process needs them to answer what is being waited for.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
