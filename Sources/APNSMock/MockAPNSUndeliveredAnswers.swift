/// The answers of one connection that its client may not have received yet, for the record of a reset
/// (``MockAPNSReset``): answers given but not written to the socket, and answers written that end past what
/// the client has certainly received. Byte offsets count the connection's output
/// (``HTTP2ServerConnection/bytesWritten``).
///
/// Loop-confined, like its connection handler. It keeps only what may still be undelivered: each write
/// forgets the answers that ended before the delivered part of the output.
struct MockAPNSUndeliveredAnswers {
    /// Answered, not yet written.
    private var unwritten: [Int32] = []
    /// Written, ending at byte `end` of the output, oldest first; `first` is where the live part starts.
    private var written: [(streamID: Int32, end: Int)] = []
    private var first = 0

    /// An answer to `streamID` was given (it goes out with the next write).
    mutating func answered(_ streamID: Int32) {
        unwritten.append(streamID)
    }

    /// The output reached `total` bytes, of which the last `undelivered` may not have reached the client:
    /// the answers given before end at or before `total`, and those ending within the delivered part are
    /// forgotten.
    mutating func wrote(upTo total: Int, undelivered: Int) {
        for streamID in unwritten { written.append((streamID, total)) }
        unwritten.removeAll(keepingCapacity: true)
        let delivered = total - undelivered
        while first < written.count, written[first].end <= delivered { first += 1 }
        // Compact once the forgotten part is the larger one, so the array stays proportional to the live part.
        if first > 64, first * 2 > written.count {
            written.removeFirst(first)
            first = 0
        }
    }

    /// The streams whose answers the client may not have received, when the output stands at `total` bytes
    /// of which the last `undelivered` may not have reached it; ascending.
    func owed(total: Int, undelivered: Int) -> [Int32] {
        let delivered = total - undelivered
        var owed = unwritten
        for index in first..<written.count where written[index].end > delivered { owed.append(written[index].streamID) }
        return owed.sorted()
    }
}
