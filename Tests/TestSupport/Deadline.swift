import PushSync
public import Testing

/// A wait that ran out of time: names what was awaited and how long the test gave it.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What the test was waiting for, in the test's words.
    public let what: String
    /// How long it waited.
    public let timeout: Duration

    /// "timed out after 60 s waiting for …".
    public var description: String { "timed out after \(timeout) waiting for \(what)" }
}

/// Waits for `body` (an event: a count reached, a line printed, a process gone) for at most `timeout`.
///
/// When the deadline passes first, this throws `DeadlineExceeded` naming `what`, so the test fails with the
/// reason instead of hanging. `body` runs in a task of its own and is cancelled then; a body that ignores
/// cancellation (a continuation nobody resumes) is left behind rather than awaited, which is what a task
/// group would do, and why this is not one.
public func awaitEvent<T: Sendable>(
    _ what: String, within timeout: Duration = .seconds(60), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let gate = PThreadLock<CheckedContinuation<Result<T, any Error>, Never>?>(nil)
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        gate.withLock { continuation in
            continuation?.resume(returning: result)
            continuation = nil
        }
    }
    var worker: Task<Void, Never>?
    var timer: Task<Void, Never>?
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
        gate.withLock { $0 = continuation }
        worker = Task {
            do { finish(.success(try await body())) } catch { finish(.failure(error)) }
        }
        timer = Task {
            try? await Task.sleep(for: timeout)
            finish(.failure(DeadlineExceeded(what: what, timeout: timeout)))
        }
    }
    timer?.cancel()
    if case .failure(let error) = result, error is DeadlineExceeded { worker?.cancel() }
    return try result.get()
}

/// `awaitEvent` for a wait that answers whether its event happened: records an issue naming `what` and
/// returns false when the deadline passes first, so `#expect(await waitFor(…))` reads as the check it is.
public func waitFor(
    _ what: String, within timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async -> Bool
) async -> Bool {
    do {
        return try await awaitEvent(what, within: timeout, body)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return false
    }
}

/// Asks `body` every `interval` until it returns a value, and returns that value; throws `DeadlineExceeded`
/// naming `what` when `timeout` passes first.
///
/// Only for a condition on something that cannot tell the test it changed (rows in PostgreSQL, a scrape by
/// Prometheus, a hold that is a time rather than an event): anything that can notify (a stream, a
/// continuation, a printed line) is awaited with ``awaitEvent(_:within:_:)`` instead.
public func poll<T: Sendable>(
    _ what: String, within timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(50),
    _ body: @escaping @Sendable () async throws -> T?
) async throws -> T {
    try await awaitEvent(what, within: timeout) {
        while true {
            if let value = try await body() { return value }
            try await Task.sleep(for: interval)
        }
    }
}

/// Runs `body` every `interval` until `done` says to stop (checked before each run): for a test whose subject
/// is what happens over a stretch of time (a holder renewing its lease while another instance tries to
/// claim, a steady load while Prometheus scrapes), not a wait for an event.
public func repeatEvery(
    _ interval: Duration, until done: () -> Bool, _ body: () async throws -> Void
) async throws {
    while !done() {
        try await body()
        try await Task.sleep(for: interval)
    }
}
