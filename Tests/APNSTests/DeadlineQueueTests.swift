import Testing

@testable import APNS

/// The dispatcher's request deadlines keep what live sends need, not every send of the last timeout.
@Suite("Request deadline queue")
struct DeadlineQueueTests {
    /// A fixed origin, so the deadlines below read as seconds from it.
    let origin = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { origin + .seconds(seconds) }

    @Test("a steady load keeps storage bounded by the sends live, not by the sends handled")
    func steadyLoadStaysBounded() {
        var queue = DeadlineQueue()
        var live = Set<UInt64>()
        var next: UInt64 = 0
        var largestCapacity = 0
        // A million sends, 2,000 in flight at a time, each answered long before its 30 s deadline.
        for round in 0..<1_000 {
            let now = Double(round) * 0.001
            for _ in 0..<1_000 {
                next += 1
                live.insert(next)
                queue.append(deadline: at(now + 30), id: next)
            }
            if round > 0 { live.subtract((next - 1_999)...(next - 1_000)) }  // the previous round answered
            let expired = queue.sweep(now: at(now)) { live.contains($0) }
            #expect(expired.isEmpty)
            largestCapacity = max(largestCapacity, queue.capacity)
        }
        #expect(queue.count <= 2_000)
        #expect(largestCapacity <= 8 * DeadlineQueue.minimumCompaction)
    }

    @Test("live sends past their deadline come back oldest first; finished ones never do")
    func expiredOldestFirst() {
        var queue = DeadlineQueue()
        for id: UInt64 in 1...5 { queue.append(deadline: at(Double(id)), id: id) }
        let live: Set<UInt64> = [1, 3, 4, 5]
        #expect(queue.sweep(now: at(0.5)) { live.contains($0) }.isEmpty)
        #expect(queue.count == 5)
        #expect(queue.sweep(now: at(3)) { live.contains($0) } == [1, 3])
        #expect(queue.count == 2)
        #expect(queue.sweep(now: at(10)) { _ in false }.isEmpty)
        #expect(queue.count == 0)
    }

    @Test("a live send not yet due holds the entries behind it until it finishes or expires")
    func liveSendHoldsTheTail() {
        var queue = DeadlineQueue()
        for id: UInt64 in 1...10_000 { queue.append(deadline: at(30), id: id) }
        #expect(queue.sweep(now: at(1)) { $0 == 1 }.isEmpty)
        #expect(queue.count == 10_000)
        #expect(queue.sweep(now: at(1)) { _ in false }.isEmpty)
        #expect(queue.count == 0)
    }

    @Test("storage grown by a burst goes back once the burst is answered")
    func burstStorageIsReturned() {
        var queue = DeadlineQueue()
        for id: UInt64 in 1...200_000 { queue.append(deadline: at(30), id: id) }
        let grown = queue.capacity
        #expect(queue.sweep(now: at(1)) { $0 > 199_000 }.isEmpty)
        #expect(queue.count == 1_000)
        #expect(queue.capacity < grown / 16)
    }
}
