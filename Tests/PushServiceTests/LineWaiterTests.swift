import Testing

@Suite("LineWaiter: waits resumed by lines, with a deadline")
struct LineWaiterTests {
    @Test("a wait is resumed by the line that makes its condition true")
    func resumedByTheLine() async {
        let waiter = LineWaiter()
        waiter.append("starting")
        let waiting = Task { await waiter.waitFor { $0.contains("ready") } }
        // The condition holds for no line yet; a line that makes it true ends the wait, whenever it comes.
        waiter.append("still starting")
        waiter.append("ready")
        #expect(await waiting.value)
    }

    @Test("a condition already true answers at once")
    func alreadyTrue() async {
        let waiter = LineWaiter()
        waiter.append("ready")
        #expect(await waiter.waitFor(timeout: 0.001) { $0.contains("ready") })
    }

    @Test("a condition never met answers false at its deadline and leaves no waiter behind")
    func deadline() async {
        let waiter = LineWaiter()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await waiter.waitFor(timeout: 0.2) { $0.contains("never") } == false)
        #expect(clock.now - start >= .milliseconds(200))
        // A waiter left in the list would be resumed a second time here, which stops the process.
        waiter.append("never")
        #expect(await waiter.waitFor(timeout: 0.001) { $0.contains("never") })
    }
}
