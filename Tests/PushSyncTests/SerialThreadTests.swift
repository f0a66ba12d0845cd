import Foundation
import PushSync
import TestSupport
import Testing

@Suite("SerialThread")
struct SerialThreadTests {
    /// An actor whose executor is a `SerialThread`: records, in order, what its jobs were handed and
    /// whether each ran on the thread.
    actor Recorder {
        let thread: SerialThread
        nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
        private(set) var values: [Int] = []
        private(set) var offThread = 0

        init(thread: SerialThread) { self.thread = thread }

        func add(_ value: Int) {
            if !thread.isCurrent { offThread += 1 }
            values.append(value)
        }
    }

    @Test("an actor on a serial thread runs every job there, one at a time, in the order each caller asked")
    func actorJobsRunOnTheThread() async {
        let thread = SerialThread(name: "serial-test")
        defer { thread.stop() }
        let recorder = Recorder(thread: thread)
        // Concurrent callers, each asking in its own order.
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<8 {
                group.addTask {
                    for step in 0..<250 { await recorder.add(caller * 1_000 + step) }
                }
            }
        }
        let values = await recorder.values
        #expect(values.count == 2_000)
        #expect(await recorder.offThread == 0)
        for caller in 0..<8 {
            let own = values.filter { $0 / 1_000 == caller }
            #expect(own == (0..<250).map { caller * 1_000 + $0 })
        }
        // The caller is not on the thread, and the actor's isolation is checked by the thread.
        #expect(!thread.isCurrent)
        await recorder.checkIsolation()
    }

    @Test("a closure handed to the thread runs there, after the jobs before it, and may enter the actor")
    func closureEntersTheActor() async throws {
        let thread = SerialThread(name: "serial-closure")
        defer { thread.stop() }
        let recorder = Recorder(thread: thread)
        await recorder.add(1)
        let entered = try await awaitEvent("the closure ran on the thread") {
            await withCheckedContinuation { continuation in
                thread.execute {
                    // `assumeIsolated` asks the thread (`checkIsolated`): a closure is no job of the actor.
                    recorder.assumeIsolated { $0.add(2) }
                    continuation.resume(returning: thread.isCurrent)
                }
            }
        }
        #expect(entered)
        #expect(await recorder.values == [1, 2])
        #expect(await recorder.offThread == 0)
    }

    @Test("a job runs on the thread that carries the given name")
    func threadIsNamed() async {
        let thread = SerialThread(name: "serial-named")
        defer { thread.stop() }
        let recorder = NameRecorder(thread: thread)
        #expect(await recorder.currentThreadName() == "serial-named")
    }

    actor NameRecorder {
        let thread: SerialThread
        nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
        init(thread: SerialThread) { self.thread = thread }
        func currentThreadName() -> String { SerialThreadTests.currentThreadName() }
    }

    /// The name of the calling thread, as the kernel keeps it.
    static func currentThreadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    @Test("stop ends the thread once the jobs handed over before it have run, and lets the executor go")
    func stopEndsTheThread() async throws {
        weak var released: SerialThread?
        do {
            let thread = SerialThread(name: "serial-stop")
            released = thread
            let recorder = Recorder(thread: thread)
            await recorder.add(1)
            thread.stop()
        }
        // The thread holds its executor until it has run its last job; nothing tells when it has gone.
        let box = WeakThread(released)
        _ = try await poll("the stopped thread lets its executor go", within: .seconds(10)) { box.isGone ? true : nil }
    }

    /// A weak reference a polling task can read.
    final class WeakThread: Sendable {
        private let reference: PThreadLock<Reference>
        private struct Reference { weak var thread: SerialThread? }
        init(_ thread: SerialThread?) { reference = PThreadLock(Reference(thread: thread)) }
        var isGone: Bool { reference.withLock { $0.thread == nil } }
    }

    @Test("state confined to the thread, asked for elsewhere, stops the process")
    func offThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let thread = SerialThread(name: "serial-trap")
            thread.preconditionCurrent("a test's state")
        }
    }
}

extension SerialThreadTests.Recorder {
    /// `preconditionIsolated` on the actor's own thread passes (the thread answers `checkIsolated`).
    func checkIsolation() {
        preconditionIsolated()
        thread.preconditionCurrent()
    }
}
