import APNSCore
import Foundation
import PushStore

/// What one notification's outcome does besides its row: metrics, a log line, and the device's invalidation.
extension OutboxWorker {
    /// The acceptances among `completions` by the app that sent each (`sent`, same positions), counted per run
    /// of one app (a claim's rows mostly go to one): no hash per row.
    static func acceptedByApp(_ completions: [OutboxCompletion], _ sent: [Sent]) -> [String: Int] {
        var accepted: [String: Int] = [:]
        var run: (app: String, count: Int)?
        for (completion, sent) in zip(completions, sent) {
            guard case .accepted = completion.result else { continue }
            if let current = run, current.app == sent.app {
                run = (current.app, current.count + 1)
            } else {
                if let current = run { accepted[current.app, default: 0] += current.count }
                run = (sent.app, 1)
            }
        }
        if let current = run { accepted[current.app, default: 0] += current.count }
        return accepted
    }

    /// Counts and logs one notification's outcome; a rejection that invalidates its token invalidates the device.
    func account(_ result: APNSDeliveryResult, app: String, item: OutboxItem, state: OutboxState?) async {
        switch result {
        case .accepted:
            metrics.recordPush(app: app, outcome: "accepted", reason: "")
            logger.debug("push.accepted", [("id", item.id), ("push_id", item.pushID)])
        case .rejected(let rejection) where !rejection.reason.isRetryable:
            metrics.recordPush(app: app, outcome: "rejected", reason: rejection.reason.rawValue)
            logger.info(
                "push.rejected",
                [
                    ("id", item.id), ("push_id", item.pushID), ("app", app), ("status", "\(rejection.status)"),
                    ("reason", rejection.reason.rawValue),
                ])
            if rejection.reason.invalidatesToken, case .device(let token) = item.target {
                await invalidate(token, topic: item.topic, rejection: rejection)
            }
        case .rejected, .failed:
            let outcome = state == .failed ? "failed" : "retry"
            let reason = result.storedReason?.rawValue ?? ""
            metrics.recordPush(app: app, outcome: outcome, reason: reason)
            if outcome == "retry" {
                switch result {
                case .failed(let error): metrics.recordResend(cause: error.isSafeToRetry ? "not_sent" : "outcome_unknown")
                default: metrics.recordResend(cause: "retryable_rejection")
                }
            }
            var fields = [
                ("id", item.id), ("status", result.status.map(String.init) ?? "-"),
                ("reason", reason), ("attempts", "\(item.attempts)"),
            ]
            if case .failed(let error) = result { fields.append(("transport", error.kind.rawValue)) }
            logger.log(outcome == "failed" ? .warning : .debug, "push.\(outcome)", fields)
        }
    }

    /// Marks the device invalidated by Apple's rule (the 410 timestamp, if any), counted and logged once.
    private func invalidate(_ token: DeviceToken, topic: String, rejection: APNSRejection) async {
        do {
            let changed = try await devices.invalidate(
                token: token, topic: topic,
                reason: rejection.reason, at: rejection.timestamp ?? Date())
            if changed {
                metrics.recordTokenInvalidated(reason: rejection.reason.rawValue)
                logger.info("device.invalidated", [("topic", topic), ("reason", rejection.reason.rawValue)])
            }
        } catch {
            logger.error("device.invalidate_failed", [("error", "\(error)")])
        }
    }
}
