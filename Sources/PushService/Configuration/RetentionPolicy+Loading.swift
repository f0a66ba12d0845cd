extension RetentionPolicy {
    /// Reads the configuration file's `retention` object: ages in seconds (`final_outbox_s`,
    /// `answered_mate_requests_s`, `ended_drops_s`, `idempotency_keys_s`, `webhook_events_s`,
    /// `retired_activity_tokens_s`), `interval_s` and `batch_size`.
    mutating func apply(json section: JSONFields) throws(APIError) {
        try section.checkKnown([
            "final_outbox_s", "answered_mate_requests_s", "ended_drops_s", "idempotency_keys_s", "webhook_events_s",
            "retired_activity_tokens_s", "interval_s", "batch_size",
        ])
        func age(_ name: String) throws(APIError) -> Duration? {
            guard let value = try section.double(name) else { return nil }
            guard value > 0, value.isFinite else { throw .invalidField("retention.\(name)", "must be a positive number of seconds") }
            return .seconds(value)
        }
        if let value = try age("final_outbox_s") { finalOutbox = value }
        if let value = try age("answered_mate_requests_s") { answeredMateRequest = value }
        if let value = try age("ended_drops_s") { endedDrop = value }
        if let value = try age("idempotency_keys_s") { idempotencyKey = value }
        if let value = try age("webhook_events_s") { webhookEvent = value }
        if let value = try age("retired_activity_tokens_s") { retiredActivityToken = value }
        if let value = try age("interval_s") { interval = value }
        if let value = try section.int("batch_size") {
            guard (1...100_000).contains(value) else { throw .invalidField("retention.batch_size", "must be 1-100000") }
            batchSize = value
        }
    }
}
