import Foundation
import PushIO
import Testing

@Suite("Event loop as a task executor")
struct EventLoopTaskExecutorTests {
    @Test("a task that prefers the loop runs on its thread, also after the loop resumed it")
    func tasksRunOnTheLoopThread() async throws {
        let loop = EventLoop(name: "executor")
        defer { loop.shutdown() }
        let onLoop = await withTaskExecutorPreference(loop) { () async -> [Bool] in
            var seen = [loop.inEventLoop]
            for _ in 0..<100 {
                // Resumed by a loop job: the task continues on the loop thread.
                await withCheckedContinuation { continuation in loop.execute { continuation.resume() } }
                seen.append(loop.inEventLoop)
            }
            return seen
        }
        #expect(onLoop.count == 101)
        #expect(onLoop.allSatisfy { $0 })
    }

    @Test("tasks and closures queued on the loop run in the order they were queued")
    func tasksAndClosuresKeepTheirOrder() async throws {
        let loop = EventLoop(name: "executor-order")
        defer { loop.shutdown() }
        let order = Locked<[String]>([])
        await withTaskExecutorPreference(loop) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                loop.execute {
                    order.withLock { $0.append("first closure") }
                    // Resuming queues the task's next job; the closure queued after it runs after it.
                    continuation.resume()
                    loop.execute { order.withLock { $0.append("second closure") } }
                }
            }
            order.withLock { $0.append("task") }
        }
        try await loop.submit {}
        #expect(order.withLock { $0 } == ["first closure", "task", "second closure"])
    }

    @Test("a task that prefers a loop that has stopped still finishes")
    func stoppedLoopHandsTasksOn() async throws {
        let loop = EventLoop(name: "executor-stopped")
        loop.shutdown()
        let finished = await withTaskExecutorPreference(loop) { () async -> Bool in
            await Task.yield()
            return !loop.inEventLoop
        }
        #expect(finished)
    }
}
