extension PushStore {
    /// Every outbox row, in enqueue order: for audits that reconcile the whole outbox (the chaos harness),
    /// not for serving requests.
    public func allOutboxItems() throws -> [OutboxItem] {
        try connection.query("SELECT \(Self.outboxColumns) FROM \(Self.outboxJoin) ORDER BY i.seq", row: Self.outboxRow)
    }
}
