import Foundation
import PushIO
import Testing

/// A loop-confined object for the tests: a class that is not `Sendable`.
private final class Tally {
    var count = 0
}

@Suite("LoopBound and the loop checks of loop-confined types")
struct LoopBoundTests {
    @Test("on its loop the value is read and written; inEventLoop tells the loop thread from others")
    func onLoop() async throws {
        let loop = EventLoop(name: "loop-bound")
        defer { loop.shutdown() }
        #expect(!loop.inEventLoop)
        let counts = try await loop.submit { () -> [Int] in
            #expect(loop.inEventLoop)
            loop.preconditionInEventLoop()
            var bound = LoopBound(Tally(), loop: loop)
            bound.value.count += 2
            let first = bound.value.count
            bound.value = Tally()
            return [first, bound.value.count]
        }
        #expect(counts == [2, 0])
    }

    @Test("a value made on another thread is handed over whole and used by jobs on its loop")
    func handedOver() async throws {
        let loop = EventLoop(name: "loop-bound-handover")
        defer { loop.shutdown() }
        let bound = LoopBound(handingOver: Tally(), to: loop)
        #expect(bound.loop === loop)
        for _ in 0..<3 { loop.execute { bound.value.count += 1 } }
        let count = try await loop.submit { bound.value.count }
        #expect(count == 3)
    }

    @Test("reading the value off its loop stops the process, naming the loop")
    func readOffLoopTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = EventLoop(name: "loop-bound-read")
            let bound = LoopBound(handingOver: Tally(), to: loop)
            _ = bound.value.count
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("called off the thread of event loop 'loop-bound-read'"), "\(message)")
    }

    @Test("writing the value off its loop stops the process")
    func writeOffLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = EventLoop(name: "loop-bound-write")
            var bound = LoopBound(handingOver: 1, to: loop)
            bound.value = 2
        }
    }

    @Test("another loop's thread is off the loop too")
    func otherLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let home = EventLoop(name: "loop-bound-home")
            let other = EventLoop(name: "loop-bound-other")
            let bound = LoopBound(handingOver: Tally(), to: home)
            try other.submitSync { _ = bound.value }
        }
    }

    @Test("wrapping with the checked initializer off the loop stops the process")
    func wrapOffLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = EventLoop(name: "loop-bound-wrap")
            _ = LoopBound(Tally(), loop: loop)
        }
    }

    @Test("a loop-confined type checks its entry points: a timer scheduled off its loop stops the process")
    func timerOffLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = EventLoop(name: "loop-bound-timer")
            let timer = try loop.submitSync { LoopTimer(loop: loop) {} }
            timer.schedule(after: .seconds(1))
        }
    }

    @Test("the same timer scheduled and cancelled on its loop works")
    func timerOnLoop() async throws {
        let loop = EventLoop(name: "loop-bound-timer-ok")
        defer { loop.shutdown() }
        let scheduled = try await loop.submit { () -> [Bool] in
            let timer = LoopTimer(loop: loop) {}
            timer.schedule(after: .seconds(60))
            let before = timer.isScheduled
            timer.cancel()
            return [before, timer.isScheduled]
        }
        #expect(scheduled == [true, false])
    }
}
