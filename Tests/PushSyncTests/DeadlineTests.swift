import PushSync
import TestSupport
import Testing

/// The deadline every wait in the suite goes through: it returns what the event gave, and when the event
/// never comes it fails in time, naming the event, even if the wait ignores cancellation.
@Suite struct DeadlineTests {
    @Test func anEventThatComesGivesItsValue() async throws {
        let semaphore = AsyncSemaphore(permits: 0)
        Task { semaphore.release() }
        let value = try await awaitEvent("the signal", within: .seconds(30)) {
            await semaphore.acquireUninterruptibly()
            return 7
        }
        #expect(value == 7)
    }

    @Test func aWaitThatIgnoresCancellationStillEndsAtItsDeadline() async throws {
        // A continuation nobody resumes: cancellation cannot end it, so a task group would hang here.
        let never = PThreadLock<CheckedContinuation<Void, Never>?>(nil)
        await #expect {
            try await awaitEvent("a continuation nobody resumes", within: .milliseconds(50)) {
                await withCheckedContinuation { continuation in never.withLock { $0 = continuation } }
            }
        } throws: { error in
            (error as? DeadlineExceeded)?.description.contains("a continuation nobody resumes") == true
        }
        // Release the abandoned task so it does not outlive the test process's bookkeeping.
        while never.withLock({ $0 == nil }) { await Task.yield() }
        never.withLock { $0?.resume() }
    }

    @Test func pollAsksUntilItGetsAValue() async throws {
        let asks = PThreadLock(0)
        let value = try await poll("the third answer", within: .seconds(30), every: .milliseconds(1)) { () -> String? in
            asks.withLock { count in
                count += 1
                return count == 3 ? "three" : nil
            }
        }
        #expect(value == "three")
        #expect(asks.withLock { $0 } == 3)
    }

    @Test func pollThatNeverGetsAValueEndsAtItsDeadlineNamingWhatItAskedFor() async {
        await #expect {
            try await poll("rows that never come", within: .milliseconds(50), every: .milliseconds(5)) { () -> Int? in nil }
        } throws: { error in
            (error as? DeadlineExceeded)?.description.contains("rows that never come") == true
        }
    }

    @Test func repeatEveryRunsUntilDone() async throws {
        var runs = 0
        try await repeatEvery(.milliseconds(1), until: { runs == 4 }) { runs += 1 }
        #expect(runs == 4)
    }

    @Test func errorsOfTheBodyComeThrough() async {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await awaitEvent("an answer", within: .seconds(30)) { () async throws -> Int in throw Refused() }
        }
    }
}
