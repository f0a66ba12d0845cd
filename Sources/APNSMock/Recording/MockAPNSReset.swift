public import Foundation

/// One TCP reset the mock made (`abruptCloseAfterStreams`, `abruptCloseEveryStreams`), with the answers its
/// client was still owed at that moment: those are the notifications whose outcome the client cannot know,
/// and only they may come again because of this reset.
///
/// An answer counts as owed when the request had been decided (it has a ``MockAPNSRecord``) and
/// - its answer was not given yet (waiting for its latency), or
/// - it was given but not yet written to the socket, or
/// - it was written, but the bytes up to its end were still queued in the process or not yet acknowledged
///   by the client's TCP (Linux `SIOCOUTQ`). The reset discards both, so the client never reads them.
///
/// Bytes the client's TCP did acknowledge are in its receive queue, which a reset does not clear on Linux:
/// the client still reads them, so those answers are not owed. The kernel counts bytes of TLS records, a
/// little more than the frames they carry, so an answer right at that boundary may count as owed when it was
/// in fact delivered; never the other way round.
public struct MockAPNSReset: Sendable, Hashable {
    /// The connection reset (``MockAPNSRecord/connectionID``).
    public let connectionID: Int
    /// When it was reset.
    public let time: Date
    /// The HTTP/2 streams (``MockAPNSRecord/streamID``) of the decided requests whose answers the client
    /// had not received, ascending.
    public let owedStreamIDs: [Int]
    /// Bytes the client's TCP had not acknowledged at the reset (nil where the kernel does not say).
    public let unacknowledgedBytes: Int?
    /// Of those, bytes the kernel had not sent yet (nil where the kernel does not say).
    public let unsentBytes: Int?
    /// Bytes written but still queued in the mock's process, not yet handed to the kernel.
    public let queuedBytes: Int

    /// A reset record with the given parts.
    public init(
        connectionID: Int, time: Date, owedStreamIDs: [Int], unacknowledgedBytes: Int?, unsentBytes: Int?, queuedBytes: Int
    ) {
        self.connectionID = connectionID
        self.time = time
        self.owedStreamIDs = owedStreamIDs
        self.unacknowledgedBytes = unacknowledgedBytes
        self.unsentBytes = unsentBytes
        self.queuedBytes = queuedBytes
    }

    /// Whether the answer on `streamID` was still owed when this reset happened.
    public func owed(streamID: Int) -> Bool {
        var low = 0
        var high = owedStreamIDs.count
        while low < high {
            let middle = (low + high) / 2
            if owedStreamIDs[middle] < streamID { low = middle + 1 } else { high = middle }
        }
        return low < owedStreamIDs.count && owedStreamIDs[low] == streamID
    }
}
