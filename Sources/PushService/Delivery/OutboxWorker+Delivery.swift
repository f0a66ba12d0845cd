import APNSCore
import PushStore

extension OutboxWorker {
    /// The rows of one claim that go to one app's client for one environment.
    struct SendGroup: Hashable {
        var app: Int
        var environment: APNSEnvironment
    }

    /// Results of one batch send that arrived together.
    struct Delivery: Sendable {
        var items: [OutboxItem]
        var started: ContinuousClock.Instant
        var app: String
        var environment: APNSEnvironment
        var results: [APNSBatchResult]
    }
}
