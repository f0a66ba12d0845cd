/// One result of a batch send (``APNSSender/send(batch:deliver:)``, `APNSClient.send(batch:deliver:)`):
/// the notification's position in the batch and what became of it.
public struct APNSBatchResult: Sendable {
    /// Index into the batch that was sent.
    public var index: Int
    /// APNs' answer, or why none came.
    public var delivery: APNSDeliveryResult

    /// A result for position `index`.
    public init(index: Int, delivery: APNSDeliveryResult) {
        self.index = index
        self.delivery = delivery
    }

    /// A result for position `index`, from an answer or its absence.
    public init(index: Int, result: Result<APNSOutcome, APNSTransportError>) {
        self.init(index: index, delivery: APNSDeliveryResult(result))
    }

    /// APNs' answer, or the transport error (``delivery`` in the shape of `Result`).
    public var result: Result<APNSOutcome, APNSTransportError> {
        get { delivery.result }
        set { delivery = APNSDeliveryResult(newValue) }
    }
}
