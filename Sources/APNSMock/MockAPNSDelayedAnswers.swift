import APNSCore
import PushIO

/// The answers of one connection waiting for their latency, with one timer for all of them: a queue
/// ordered by due time (a binary heap), the timer armed for the earliest. A timer per answer cost an
/// event, its allocation and a heap update in libevent each, and wrote every answer on its own.
///
/// Loop-confined, like its connection handler.
struct MockAPNSDelayedAnswers {
    private var outcomes: [Int32: APNSOutcome] = [:]
    private var heap: [(due: ContinuousClock.Instant, streamID: Int32)] = []
    /// The due time the timer is armed for, if it is.
    private var armedFor: ContinuousClock.Instant?

    var isEmpty: Bool { outcomes.isEmpty }

    /// The streams whose answers wait, in no particular order.
    var streamIDs: [Int32] { Array(outcomes.keys) }

    /// Queues `outcome` for `streamID`, due at `due`; true when the timer must be
    /// armed (again) for `due`, the new earliest.
    mutating func add(_ outcome: APNSOutcome, streamID: Int32, due: ContinuousClock.Instant) -> Bool {
        outcomes[streamID] = outcome
        heap.append((due, streamID))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        guard armedFor.map({ due < $0 }) ?? true else { return false }
        armedFor = due
        return true
    }

    /// Takes the answers due by `now` (and within `slack` after it, which the timer could not resolve),
    /// in due order; returns them and the due time to arm the timer for next, if any.
    mutating func takeDue(now: ContinuousClock.Instant, slack: Duration) -> (
        due: [(streamID: Int32, outcome: APNSOutcome)], next: ContinuousClock.Instant?
    ) {
        var due: [(streamID: Int32, outcome: APNSOutcome)] = []
        while let first = heap.first, first.due <= now + slack {
            removeFirst()
            if let outcome = outcomes.removeValue(forKey: first.streamID) { due.append((first.streamID, outcome)) }
        }
        armedFor = heap.first?.due
        return (due, armedFor)
    }

    /// Takes every waiting answer, in stream order (the close after a GOAWAY answers them all at once).
    mutating func takeAll() -> [(streamID: Int32, outcome: APNSOutcome)] {
        let all = outcomes.sorted { $0.key < $1.key }.map { (streamID: $0.key, outcome: $0.value) }
        outcomes.removeAll()
        heap.removeAll()
        armedFor = nil
        return all
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
