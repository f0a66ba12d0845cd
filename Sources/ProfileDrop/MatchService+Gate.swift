import PushSync

extension MatchService {
    /// Waits until this operation holds the gate; first come first served, so no operation starves.
    /// Cancellation does not skip the wait: every operation that reads or changes engagement state runs alone.
    func enterGate() async {
        await gate.acquireUninterruptibly()
    }

    /// Hands the gate to the next waiter or opens it.
    func leaveGate() {
        gate.release()
    }
}
