/// What one claim took: the rows now in flight (in claim order; the collection itself), and the ids of
/// due rows that had expired and ended as `expired` instead, so that waiters and metrics learn of them.
public struct OutboxClaim: RandomAccessCollection, Sendable {
    /// The rows handed out, now in flight.
    public var items: [OutboxItem]
    /// Due rows that ended as `expired` in this claim.
    public var expired: [String]

    /// A claim of `items`, with `expired` row ids.
    public init(items: [OutboxItem] = [], expired: [String] = []) {
        self.items = items
        self.expired = expired
    }

    /// The first claimed row's position.
    public var startIndex: Int { items.startIndex }
    /// Past the last claimed row.
    public var endIndex: Int { items.endIndex }
    /// The claimed row at `position`.
    public subscript(position: Int) -> OutboxItem { items[position] }
}
