import Dispatch
import Foundation

/// Waits for SIGTERM or SIGINT (their default actions are replaced while the process runs).
enum SignalWaiter {
    /// Suspends until SIGTERM or SIGINT arrives; returns its name.
    static func waitForTermination() async -> String {
        let queue = DispatchQueue(label: "push-server.signals")
        return await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let once = OnceBox(continuation)
            var sources: [DispatchSourceSignal] = []
            for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { once.resume(name) }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }
}

/// Resumes a continuation at most once (from the signal queue only).
private final class OnceBox: @unchecked Sendable {
    // Touched only on the serial signal queue.
    private var continuation: CheckedContinuation<String, Never>?

    init(_ continuation: CheckedContinuation<String, Never>) { self.continuation = continuation }

    func resume(_ name: String) {
        continuation?.resume(returning: name)
        continuation = nil
    }
}

/// Keeps the signal sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    static func keep(_ list: [DispatchSourceSignal]) { sources += list }
}
