extension RetentionPolicy {
    /// Reads the configuration file's `retention` object: ages in seconds (`final_outbox_s`,
    /// `answered_mate_requests_s`, `ended_drops_s`, `idempotency_keys_s`, `webhook_events_s`,
    /// `retired_activity_tokens_s`), `interval_s` and `batch_size`.
    mutating func apply(json section: JSONFields) throws(APIError) {
        try section.checkKnown([
            "final_outbox_s", "answered_mate_requests_s", "ended_drops_s", "idempotency_keys_s", "webhook_events_s",
            "retired_activity_tokens_s", "interval_s", "batch_size",
        ])
        if let value = try section.positiveSeconds("final_outbox_s") { finalOutbox = value }
        if let value = try section.positiveSeconds("answered_mate_requests_s") { answeredMateRequest = value }
        if let value = try section.positiveSeconds("ended_drops_s") { endedDrop = value }
        if let value = try section.positiveSeconds("idempotency_keys_s") { idempotencyKey = value }
        if let value = try section.positiveSeconds("webhook_events_s") { webhookEvent = value }
        if let value = try section.positiveSeconds("retired_activity_tokens_s") { retiredActivityToken = value }
        if let value = try section.positiveSeconds("interval_s") { interval = value }
        if let value = try section.int("batch_size") {
            guard (1...100_000).contains(value) else { throw .invalidField("retention.batch_size", "must be 1-100000") }
            batchSize = value
        }
    }
}
