/// The `acceptAll` fast path's answers waiting for their latency: each is a stream id, what its answer
/// carries (the echoed id's 36 bytes, or none to make one up when it goes out) and its due time, kept inline
/// in one array in due order, with no string, dictionary entry or timer of its own. A fixed latency gives
/// due times in arrival order, so an answer is appended; a jittered one is inserted in place from the end.
///
/// Loop-confined, like its connection handler.
struct MockAPNSFastDelayedAnswers {
    /// The 36 bytes of an `apns-id` (or `apns-request-id`), inline.
    typealias IDBytes = (UInt64, UInt64, UInt64, UInt64, UInt32)

    struct Answer {
        var due: ContinuousClock.Instant
        var streamID: Int32
        /// A broadcast: answered with `apns-request-id` (and always an `apns-unique-id`).
        var broadcast: Bool
        var withUniqueID: Bool
        /// Whether `id` holds the id the request gave (to echo); false makes one up.
        var echoed: Bool
        var id: IDBytes

        /// Calls `body` with the echoed id's bytes, or nil when there is none to echo.
        func withEchoedID<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
            guard echoed else { return body(nil) }
            return withUnsafeBytes(of: id) { body($0) }
        }
    }

    /// The answers from `head` on are waiting, in due order; those before it went out.
    private var answers: [Answer] = []
    private var head = 0

    var isEmpty: Bool { head == answers.count }

    /// The streams whose answers wait, in due order.
    var streamIDs: [Int32] { answers[head...].map(\.streamID) }

    /// The earliest due time, if any answer waits.
    var nextDue: ContinuousClock.Instant? { isEmpty ? nil : answers[head].due }

    /// Queues an answer to `streamID` due at `due`, echoing `echoed` (36 bytes: a valid id) when given;
    /// true when it is the new earliest (the timer must be armed for it).
    mutating func add(
        streamID: Int32, due: ContinuousClock.Instant, broadcast: Bool, withUniqueID: Bool, echoed: UnsafeRawBufferPointer?
    ) -> Bool {
        var answer = Answer(
            due: due, streamID: streamID, broadcast: broadcast, withUniqueID: withUniqueID, echoed: false, id: (0, 0, 0, 0, 0))
        if let echoed, echoed.count == MemoryLayout<IDBytes>.size, let base = echoed.baseAddress {
            withUnsafeMutableBytes(of: &answer.id) { $0.baseAddress!.copyMemory(from: base, byteCount: echoed.count) }
            answer.echoed = true
        }
        var index = answers.count
        while index > head, answers[index - 1].due > due { index -= 1 }
        if index == answers.count { answers.append(answer) } else { answers.insert(answer, at: index) }
        return index == head
    }

    /// The earliest answer if it is due by `now` (taken out of the queue), else nil.
    mutating func takeDue(now: ContinuousClock.Instant) -> Answer? {
        guard head < answers.count, answers[head].due <= now else { return nil }
        let answer = answers[head]
        head += 1
        compact()
        return answer
    }

    /// Takes every waiting answer, in due order (the close after a GOAWAY answers them all at once).
    mutating func takeAll() -> [Answer] {
        let all = Array(answers[head...])
        answers.removeAll(keepingCapacity: true)
        head = 0
        return all
    }

    /// Forgets the answers that went out once they are all gone, or once they are most of the array.
    private mutating func compact() {
        if head == answers.count {
            answers.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > answers.count {
            answers.removeFirst(head)
            head = 0
        }
    }
}
