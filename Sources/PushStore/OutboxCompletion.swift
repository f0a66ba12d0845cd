public import APNSCore

/// One outcome to record in the outbox: the row, the claim it was sent under, and what happened.
///
/// The claim is named by the row's attempt count as that claim set it (`OutboxItem.attempts` of the claimed
/// row). Every claim, including one that takes over a row whose lease ran out on another instance, counts
/// an attempt, so an outcome carrying an older attempt is stale: `OutboxRepository.complete` leaves the row
/// alone and leaves it out of its answer. This fences a slow instance's late answer off a row that another
/// instance has since claimed and may already have sent.
public struct OutboxCompletion: Sendable, Equatable {
    /// The row id.
    public var id: String
    /// The row's attempt count when it was claimed for this send (the fencing token).
    public var attempt: Int
    /// What the send gave, as the APNs client handed it over.
    public var result: APNSDeliveryResult
    /// The claimed row's receipt (`OutboxItem.receipt`), which lets the store skip looking the row up.
    public var receipt: OutboxReceipt

    /// An outcome of row `id` sent under the claim that made its attempt count `attempt`, with the claimed
    /// row's `receipt` when it has one.
    public init(id: String, attempt: Int, result: APNSDeliveryResult, receipt: OutboxReceipt = .none) {
        self.id = id
        self.attempt = attempt
        self.result = result
        self.receipt = receipt
    }

    /// An outcome of the claimed row `item`.
    public init(_ item: OutboxItem, _ result: APNSDeliveryResult) {
        self.init(id: item.id, attempt: item.attempts, result: result, receipt: item.receipt)
    }
}
