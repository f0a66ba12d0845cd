import APNSCore
import PushStore

/// The outbox's admission bound (`outbox.max_pending*`), for every request that stores notifications:
/// pushes, broadcasts and Live Activity events. A request past the bound is refused whole with 503
/// `outbox_full` and `Retry-After`, before anything is stored or spent.
extension PushAPI {
    /// Runs `store` (the request's write to the outbox) with room taken for one notification per entry of
    /// `topics`, each of `payloadBytes`; the room is given back when it returns, counted as stored only if
    /// it did not throw. Throws `outbox_full` without running `store` when the bound would be passed.
    func withOutboxRoom<Result>(
        _ topics: [String], payloadBytes: Int, _ store: () async throws -> Result
    ) async throws -> Result {
        let admitted = try await admitToOutbox(topics, payloadBytes: payloadBytes)
        var stored = false
        defer { for (app, rows) in admitted { admission.finished(app: app, rows: rows, stored: stored) } }
        let result = try await store()
        stored = true
        return result
    }

    /// Takes room in the outbox for rows of `topics` (one per notification) of `payloadBytes` each, per app;
    /// throws 503 `outbox_full` (nothing taken) when the outbox's bound would be passed.
    func admitToOutbox(_ topics: [String], payloadBytes: Int) async throws -> [(app: Int?, rows: Int)] {
        guard admission.isBounded, !topics.isEmpty else { return [] }
        let senders = self.senders
        admission.refresh(outbox: outbox, appIndex: { senders.index(forTopic: $0) })
        // Counted per run of rows with one topic (a push's rows share it): one lookup and one count a run.
        var rowsByApp: [Int?: Int] = [:]
        var lastTopic: String?
        var lastApp: Int?
        var run = 0
        for topic in topics {
            if topic != lastTopic {
                if run > 0 { rowsByApp[lastApp, default: 0] += run }
                lastTopic = topic
                lastApp = senders.index(forTopic: topic)
                run = 0
            }
            run += 1
        }
        if run > 0 { rowsByApp[lastApp, default: 0] += run }
        var taken: [(app: Int?, rows: Int)] = []
        for (app, rows) in rowsByApp {
            if let refusal = admission.admit(app: app, rows: rows, payloadBytes: payloadBytes) {
                for (app, rows) in taken { admission.finished(app: app, rows: rows, stored: false) }
                throw outboxFull(refusal)
            }
            taken.append((app, rows))
        }
        return taken
    }

    private func outboxFull(_ refusal: OutboxAdmission.Refusal) -> APIError {
        let (what, app, pending, limit): (String, String?, Int, Int)
        switch refusal {
        case .rows(let name, let count, let bound): (what, app, pending, limit) = ("rows", name, count, bound)
        case .bytes(let name, let count, let bound): (what, app, pending, limit) = ("bytes", name, count, bound)
        }
        metrics.recordOutboxRefusal(app: app ?? "", limit: what)
        let scope = app.map { "app \($0)'s notifications" } ?? "the outbox"
        let unit = what == "rows" ? "notifications" : "payload bytes"
        return APIError(
            status: 503, code: "outbox_full",
            message: "\(scope) hold \(pending) pending \(unit), and this request would pass the bound of \(limit); retry later",
            retryAfterSeconds: Int((Self.outboxFullRetryAfter / .seconds(1)).rounded(.up)))
    }

    /// `Retry-After` of a push refused by the outbox bound.
    static let outboxFullRetryAfter: Duration = .seconds(5)
}
