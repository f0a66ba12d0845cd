import APNSCore
import Foundation
import PushStore
import PushStoreSQL

/// Writing outcomes: each batch in one write, split when the store refuses it for good, kept when it
/// cannot commit.
extension OutboxWorker {
    /// Outcomes to write, each beside who sent it (same positions).
    struct Outcomes {
        var completions: [OutboxCompletion] = []
        var sent: [Sent] = []

        var count: Int { completions.count }
        var isEmpty: Bool { completions.isEmpty }

        mutating func append(_ other: Outcomes) {
            completions.append(contentsOf: other.completions)
            sent.append(contentsOf: other.sent)
        }

        /// The first half and the second.
        func halves() -> (Outcomes, Outcomes) {
            let middle = count / 2
            return (
                Outcomes(completions: Array(completions[..<middle]), sent: Array(sent[..<middle])),
                Outcomes(completions: Array(completions[middle...]), sent: Array(sent[middle...]))
            )
        }
    }

    /// Writes `pieces` in order, one write each, settling what commits.
    ///
    /// A write the store refuses for good (`OutboxCompleteFailure.permanent`: a constraint, a malformed
    /// statement) is split in halves written apart, down to single rows, so every row that can commit does;
    /// a row refused on its own is kept (`keepUnwritable`). A transient failure (the database away, busy or
    /// full) puts what is not written yet back in front of the outcomes waiting and waits the back-off.
    func write(_ pieces: [Outcomes]) async {
        var pieces = Array(pieces.reversed())
        while let piece = pieces.popLast() {
            let started = ContinuousClock.now
            let states: [String: OutboxState]
            do {
                states = try await outbox.complete(piece.completions, now: Date())
            } catch {
                metrics.recordComplete(seconds: Self.seconds(since: started))
                let kind = OutboxCompleteFailure(error)
                if stopped {
                    abandon(piece.count + pieces.reduce(0) { $0 + $1.count }, error: error)
                    return
                }
                if kind == .permanent {
                    if piece.count == 1 {
                        keepUnwritable(piece, error: error)
                    } else {
                        let (first, second) = piece.halves()
                        pieces.append(second)
                        pieces.append(first)
                    }
                    continue
                }
                var unwritten = piece
                for rest in pieces.reversed() { unwritten.append(rest) }
                await retryLater(unwritten, error: error)
                return
            }
            metrics.recordComplete(seconds: Self.seconds(since: started))
            metrics.recordStaleCompletions(piece.count - states.count)  // each claimed row is sent once per claim
            completeFailures = 0
            await settle(piece, states: states)
        }
    }

    /// After a transient failure: `unwritten` goes back in front of what came in meanwhile and is written
    /// again after a back-off, under the same claims (attempt counts), so a commit that comes late still
    /// cannot overwrite a newer claim. Its rows are held again, so their leases are renewed meanwhile, and
    /// stay counted in flight, so no more rows are claimed than can be settled. Kept, never dropped: a row
    /// APNs accepted whose outcome is lost would stay in flight (and be sent again after a restart).
    private func retryLater(_ unwritten: Outcomes, error: any Error) async {
        rehold(unwritten.completions)
        completeFailures += 1
        let delay = Self.completeRetryDelay(after: completeFailures)
        metrics.recordCompleteRetry()
        metrics.recordCompleteFailure(permanent: false)
        logger.error(
            "outbox.complete_failed",
            [("error", "\(error)"), ("rows", "\(unwritten.count)"), ("retry_in_ms", "\(Int(delay / .milliseconds(1)))")])
        var waiting = unwritten
        waiting.append(completed)
        completed = waiting
        try? await Task.sleep(for: delay)
    }

    /// A row whose outcome the store refuses on its own, for good: logged with its id (once), counted, and
    /// kept, still held (its lease renewed, so no instance sends it again while this one lives) and counted
    /// in flight; written again every `unwritableRetryDelay`, apart from other outcomes.
    private func keepUnwritable(_ row: Outcomes, error: any Error) {
        var row = row
        metrics.recordCompleteFailure(permanent: true)
        if !row.sent[0].unwritable {
            row.sent[0].unwritable = true
            unwritableRows += 1
            metrics.setUnwritableOutcomes(unwritableRows)
            logger.error(
                "outbox.complete_refused",
                [("id", row.completions[0].id), ("error", "\(error)"), ("retry_in_ms", "\(Int(unwritableRetryDelay / .milliseconds(1)))")])
        }
        rehold(row.completions)
        unwritable.append(row)
        guard unwritableRetry == nil else { return }
        let delay = unwritableRetryDelay
        unwritableRetry = Task { [weak self] in
            try? await Task.sleep(for: delay)
            await self?.retryUnwritable()
        }
    }

    /// Hands the rows kept by `keepUnwritable` to a write of their own.
    private func retryUnwritable() {
        unwritableRetry = nil
        guard !stopped, !unwritable.isEmpty else { return }
        retrying.append(unwritable)
        unwritable = Outcomes()
        startFlush()
    }

    /// Held again, due for renewal in the next round (until written).
    private func rehold(_ completions: [OutboxCompletion]) {
        guard renewsLeases else { return }
        for completion in completions where held[completion.id] == nil {
            held[completion.id] = (completion.attempt, renewalRound - 1)
        }
    }

    /// Past stop's deadline: outcomes that still cannot be written are given up (`rows` of them in the
    /// write that failed and after it, and all waiting): their rows stay in flight in the store, put back in
    /// the queue when it opens again (SQLite) or when their lease ends (PostgreSQL), as after a crash.
    func abandon(_ rows: Int, error: any Error) {
        let given = rows + completed.count + retrying.count
        logger.error("outbox.complete_abandoned", [("error", "\(error)"), ("rows", "\(given)")])
        inFlight -= given
        completed = Outcomes()
        retrying = Outcomes()
        metrics.setInFlight(inFlight)
        abandonUnwritable()
    }

    /// Once stopped: rows refused for good are given up like outcomes that cannot be written.
    func abandonUnwritable() {
        unwritableRetry?.cancel()
        unwritableRetry = nil
        guard !unwritable.isEmpty else { return }
        logger.error("outbox.complete_abandoned", [("error", "refused for good"), ("rows", "\(unwritable.count)")])
        inFlight -= unwritable.count
        unwritableRows -= unwritable.count
        unwritable = Outcomes()
        metrics.setUnwritableOutcomes(unwritableRows)
        metrics.setInFlight(inFlight)
    }

    /// What follows a committed write: metrics, logs and device invalidations per outcome, the rows out of
    /// flight, waiters told.
    private func settle(_ piece: Outcomes, states: [String: OutboxState]) async {
        var recovered = 0
        for (completion, sent) in zip(piece.completions, piece.sent) {
            if sent.unwritable { recovered += 1 }
            if case .accepted = completion.result {
                if logsDebug, let item = sent.item {
                    logger.debug("push.accepted", [("id", item.id), ("push_id", item.pushID)])
                }
            } else if let item = sent.item {
                await account(completion.result, app: sent.app, item: item, state: states[completion.id])
            }
        }
        if recovered > 0 {
            unwritableRows -= recovered
            metrics.setUnwritableOutcomes(unwritableRows)
        }
        for (app, count) in Self.acceptedByApp(piece.completions, piece.sent) {
            metrics.recordPushes(app: app, outcome: "accepted", reason: "", count: count)
        }
        inFlight -= piece.count
        metrics.setInFlight(inFlight)
        if !(await waiters.isEmpty) { await waiters.completed(states) }
        signal.signal()
    }
}
