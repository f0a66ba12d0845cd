import PushSync
import Synchronization
import TestSupport
import Testing

@Suite("AsyncSemaphore")
struct AsyncSemaphoreTests {
    /// Records the order in which waiters were admitted.
    final class Order: Sendable {
        private let entries = Mutex<[Int]>([])
        func add(_ value: Int) { entries.withLock { $0.append(value) } }
        var values: [Int] { entries.withLock { $0 } }
    }

    /// Lets other tasks run until `count` tasks wait on `semaphore` (they queue as soon as they run).
    static func untilWaiting(_ count: Int, on semaphore: AsyncSemaphore) async {
        while semaphore.waitingCount < count { await Task.yield() }
    }

    @Test("permits are handed out first come first served, one per release")
    func fifo() async {
        let semaphore = AsyncSemaphore(permits: 1)
        await semaphore.acquireUninterruptibly()
        let order = Order()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<50 {
            tasks.append(
                Task {
                    await semaphore.acquireUninterruptibly()
                    order.add(index)
                    semaphore.release()
                })
            await Self.untilWaiting(index + 1, on: semaphore)  // arrival order = index order
        }
        semaphore.release()
        for task in tasks { await task.value }
        #expect(order.values == Array(0..<50))
        #expect(semaphore.inUse(of: 1) == 0)
    }

    @Test("a cancelled waiter leaves the queue and its permit goes to the next")
    func cancellation() async {
        let semaphore = AsyncSemaphore(permits: 1)
        await semaphore.acquireUninterruptibly()
        let cancelled = Task { await semaphore.acquire() }
        await Self.untilWaiting(1, on: semaphore)
        let order = Order()
        let second = Task {
            await semaphore.acquireUninterruptibly()
            order.add(2)
        }
        await Self.untilWaiting(2, on: semaphore)
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(semaphore.waitingCount == 1)
        semaphore.release()
        await second.value
        #expect(order.values == [2])
        #expect(semaphore.inUse(of: 1) == 1)
    }

    @Test("acquire(count:) takes what is free at once, the rest as it comes back; release(count:) wakes that many")
    func counts() async {
        let semaphore = AsyncSemaphore(permits: 4)
        #expect(await semaphore.acquire(count: 3) == 3)
        #expect(semaphore.inUse(of: 4) == 3)
        let more = Task { await semaphore.acquire(count: 3) }
        await Self.untilWaiting(1, on: semaphore)
        #expect(semaphore.inUse(of: 4) == 4)
        semaphore.release(count: 3)  // the first holder gives all of its three back
        #expect(await more.value == 3)
        #expect(semaphore.inUse(of: 4) == 3)  // now only the second holder's three
        semaphore.release(count: 3)
        #expect(semaphore.inUse(of: 4) == 0)
    }

    @Test("with no permits it is a signal: the first acquire waits for a release")
    func zeroPermitsWait() async throws {
        let semaphore = AsyncSemaphore(permits: 0)
        let order = Order()
        let waiter = Task {
            await semaphore.acquireUninterruptibly()
            order.add(1)
        }
        // Queued, not admitted: there was nothing to take (a semaphore that made 0 into 1 never queues it).
        try await awaitEvent("the acquire to queue", within: .seconds(30)) { await Self.untilWaiting(1, on: semaphore) }
        #expect(order.values.isEmpty)
        semaphore.release()
        await waiter.value
        #expect(order.values == [1])
        #expect(semaphore.waitingCount == 0)
    }
}
