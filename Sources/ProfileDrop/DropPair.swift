import PushStore

/// The unordered pair of users of a drop.
struct DropPair: Hashable, Sendable {
    let low: String
    let high: String

    init(_ a: String, _ b: String) {
        (low, high) = a < b ? (a, b) : (b, a)
    }

    init(_ drop: DropRecord) {
        self.init(drop.initiatorID, drop.peerID)
    }
}

/// A matched drop and its two mate requests (the initiator's first, by id).
struct MatchedDrop: Sendable {
    let drop: DropRecord
    let requests: [MateRequestRecord]
}
