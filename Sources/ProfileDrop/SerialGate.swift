/// The FIFO queue behind `MatchService`'s gate: plain state, only ever touched inside the actor.
struct SerialGate {
    /// True while an operation holds the gate.
    var held = false
    /// Operations waiting, oldest first from `head`.
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Index of the next waiter to admit.
    var head = 0
}

extension MatchService {
    /// Waits until this operation holds the gate; FIFO, so no operation starves.
    func enterGate() async {
        guard gate.held else {
            gate.held = true
            return
        }
        await withCheckedContinuation { gate.waiters.append($0) }
    }

    /// Hands the gate to the next waiter (it stays held) or opens it.
    func leaveGate() {
        guard gate.head < gate.waiters.count else {
            gate.held = false
            gate.waiters.removeAll(keepingCapacity: true)
            gate.head = 0
            return
        }
        let next = gate.waiters[gate.head]
        gate.head += 1
        next.resume()
    }
}
