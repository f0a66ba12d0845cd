import Foundation
import PushIO
import PushSync
import TestSupport
import Testing

/// Collects bytes a stream reads and reports events through continuations.
final class RecordingDelegate: IOStreamDelegate, @unchecked Sendable {
    var received: [UInt8] = []
    var connected = false
    var onRead: (([UInt8]) -> Void)?
    var onConnect: (() -> Void)?
    var onClose: ((IOError) -> Void)?

    func streamDidConnect(_ stream: IOStream) {
        connected = true
        onConnect?()
    }
    func stream(_ stream: IOStream, didRead bytes: UnsafeRawBufferPointer) {
        received.append(contentsOf: bytes)
        onRead?(received)
    }
    func streamDidDrain(_ stream: IOStream) {}
    func stream(_ stream: IOStream, didCloseWith error: IOError) { onClose?(error) }
}

/// A shared, lockable value for closures that run on other threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: PThreadLock<Value>
    init(_ value: Value) { mutex = PThreadLock(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

@Suite("Event loop, timers and TCP streams")
struct EventLoopTests {
    @Test("jobs from many threads all run on the loop thread, each thread's in order")
    func executeFromManyThreads() async throws {
        let loop = EventLoop(name: "jobs")
        defer { loop.shutdown() }
        let seen = Locked<[Int: [Int]]>([:])
        let offLoop = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        loop.execute {
                            if !loop.inEventLoop { offLoop.withLock { $0 += 1 } }
                            seen.withLock { $0[producer, default: []].append(index) }
                        }
                    }
                }
            }
        }
        try await loop.submit {}
        #expect(offLoop.withLock { $0 } == 0)
        let all = seen.withLock { $0 }
        #expect(all.count == 8)
        for (_, sequence) in all { #expect(sequence == Array(0..<500)) }
    }

    @Test("a timer fires once; a cancelled timer never fires")
    func timers() async throws {
        let loop = EventLoop(name: "timers")
        defer { loop.shutdown() }
        let fired = Locked(0)
        let cancelledFired = Locked(0)
        try await awaitEvent("the timers to be scheduled on the loop") {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.execute {
                    let cancelled = LoopTimer(loop: loop) { cancelledFired.withLock { $0 += 1 } }
                    cancelled.schedule(after: .milliseconds(10))
                    cancelled.cancel()
                    var holder: LoopTimer?
                    holder = LoopTimer(loop: loop) {
                        fired.withLock { $0 += 1 }
                        _ = holder
                        _ = cancelled
                        holder = nil
                        done.resume()
                    }
                    holder?.schedule(after: .milliseconds(20))
                }
            }
        }
        #expect(fired.withLock { $0 } == 1)
        #expect(cancelledFired.withLock { $0 } == 0)
    }

    /// libevent's cached time made a timer added early in a loop iteration wait its whole delay again from
    /// the end of the iteration: added, then 400 ms of work in the same job, a 200 ms timer fired 600 ms
    /// after it was added. It is due 200 ms after it was added, so it fires as soon as the loop is free.
    @Test("a timer counts its delay from when it was added, not from the end of the loop turn that added it")
    func timerDelayCountsFromScheduling() async throws {
        let loop = EventLoop(name: "timer-turn")
        defer { loop.shutdown() }
        let clock = ContinuousClock()
        let elapsed: Duration = try await awaitEvent("the busy loop turn and its timer") {
            await withCheckedContinuation { done in
                loop.execute {
                    let scheduled = clock.now
                    var holder: LoopTimer?
                    holder = LoopTimer(loop: loop) {
                        done.resume(returning: clock.now - scheduled)
                        holder = nil
                    }
                    holder?.schedule(after: .milliseconds(200))
                    usleep(400_000)  // the rest of this loop turn's work: the loop is busy, not waiting
                }
            }
        }
        // Due at 200 ms, the loop is free at 400 ms: it fires then (the cached clock made it 600 ms).
        #expect(elapsed >= .milliseconds(400))
        #expect(elapsed < .milliseconds(560))
    }

    @Test("plain TCP over IPv4 and IPv6 on port 0: bytes cross both ways", arguments: ["127.0.0.1", "::1"])
    func tcpEcho(host: String) async throws {
        let loop = EventLoop(name: "tcp")
        defer { loop.shutdown() }
        let serverSide = RecordingDelegate()
        let listener = try await loop.submit {
            try IOListener(loop: loop, host: host, port: 0, tls: nil) { stream in
                stream.delegate = serverSide
                serverSide.onRead = { bytes in if bytes.count >= 5 { stream.write(bytes) } }
            }
        }
        let port = try await loop.submit { listener.port }
        #expect(port > 0)
        let clientSide = RecordingDelegate()
        let echoed: [UInt8] = try await awaitEvent("the echo of five bytes") {
            try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    clientSide.onRead = { bytes in if bytes.count >= 5 { continuation.resume(returning: bytes) } }
                    clientSide.onClose = { continuation.resume(throwing: $0) }
                    do {
                        let stream = try IOStream.connect(on: loop, host: host, port: port, tls: nil, delegate: clientSide)
                        clientSide.onConnect = { stream.write(Array("hello".utf8)) }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        #expect(echoed == Array("hello".utf8))
        try await loop.submit { listener.close() }
    }

    @Test("connecting to a closed port reports a connect error")
    func connectRefused() async throws {
        let loop = EventLoop(name: "refused")
        defer { loop.shutdown() }
        let port = try await loop.submit { () -> Int in
            let listener = try IOListener(loop: loop, host: "127.0.0.1", port: 0, tls: nil) { _ in }
            defer { listener.close() }
            return listener.port
        }
        let delegate = RecordingDelegate()
        let error: IOError = try await awaitEvent("the refused connection to close") {
            await withCheckedContinuation { continuation in
                loop.execute {
                    delegate.onClose = { continuation.resume(returning: $0) }
                    _ = try? IOStream.connect(on: loop, host: "127.0.0.1", port: port, tls: nil, delegate: delegate)
                }
            }
        }
        #expect(error.kind == .connect)
    }

    @Test("shutdown is idempotent and runs queued jobs first")
    func shutdown() async throws {
        let loop = EventLoop(name: "shutdown")
        let ran = Locked(false)
        loop.execute { ran.withLock { $0 = true } }
        loop.shutdown()
        loop.shutdown()
        #expect(ran.withLock { $0 })
    }
}
