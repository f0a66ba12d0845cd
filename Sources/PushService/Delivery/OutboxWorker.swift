import APNSCore
import Foundation
import PushStore

/// Drains the outbox into the APNs senders with bounded concurrency and applies the outcomes.
///
/// Claims due rows (marking them in flight) while fewer than `maxInFlight` are out, sends each through the
/// sender of its environment, and writes outcomes back in batches: accepted; rejected (invalidating the
/// device by Apple's rules); 429/500/503 and transport failures go back to the queue with backoff. Rows left
/// in flight by a crash are put back when the database opens (`PushDatabase.recoveredAtOpen`), so nothing
/// is lost across restarts.
public actor OutboxWorker {
    let outbox: any OutboxRepository
    let devices: any DeviceRepository
    let senders: PushSenders
    let metrics: ServiceMetrics
    let logger: ServiceLogger
    let waiters: PushWaiters
    private let maxInFlight: Int
    let logsDebug: Bool
    private let claimBatch: Int
    /// Whether device rows without a collapse id are sent with one derived from their id.
    let derivesCollapseID: Bool
    let signal = WakeSignal()
    private let deliveries: AsyncStream<Delivery>
    let deliveryInput: AsyncStream<Delivery>.Continuation

    var inFlight = 0
    private var stopping = false
    /// Outcomes not yet written, each beside who sent it.
    var completed = Outcomes()
    /// Writes of outcomes running: at most `maxFlushes`. A second one starts while the first commits, so
    /// answers that come meanwhile do not wait for that commit. While writes fail, one runs alone and
    /// retries with back-off.
    private var flushes = 0
    static let maxFlushes = 2
    /// Rows whose outcome the store refused on its own for good (`keepUnwritable`), held until written;
    /// `retrying`: those handed to a write again; `unwritableRows`: how many of either, and in writes.
    var unwritable = Outcomes()
    var retrying = Outcomes()
    var unwritableRows = 0
    var unwritableRetry: Task<Void, Never>?
    /// How long rows refused for good wait before they are written again.
    let unwritableRetryDelay: Duration
    /// Set once `stop` returned: outcomes that fail to be written then are not tried again.
    var stopped = false
    /// Failed attempts in a row to write the oldest outcomes waiting (0 once a write succeeds).
    var completeFailures = 0
    private var runTask: Task<Void, Never>?
    private var tickTask: Task<Void, Never>?
    private var consumeTask: Task<Void, Never>?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Claims launched and not yet being completed, with the renewal round they were last leased in;
    /// kept only when the store's leases lapse (`OutboxRepository.leaseRenewalInterval`).
    var held: [String: (attempt: Int, round: Int)] = [:]
    /// Renewal rounds so far; a hold is renewed in the first round after the one it was leased in.
    var renewalRound = 0
    /// Lease renewals that failed to be written, in a row (0 once one is written): their holds are kept and
    /// renewed again after a back-off.
    var leaseRenewalFailures = 0
    private var renewTask: Task<Void, Never>?

    /// Who sent a row whose outcome waits to be written (the outcome itself is the `OutboxCompletion` at the
    /// same position): the app, for per-app metrics, and the row, kept only when more than the state update
    /// needs it (rejections, retries, debug logging): most outcomes are acceptances and need no row.
    struct Sent {
        var app: String
        var item: OutboxItem?
        /// Whether the store refused this row's outcome on its own for good (logged and counted once).
        var unwritable = false
    }

    init(
        outbox: any OutboxRepository, devices: any DeviceRepository, senders: PushSenders, metrics: ServiceMetrics,
        logger: ServiceLogger, waiters: PushWaiters, maxInFlight: Int, claimBatch: Int, derivesCollapseID: Bool = true,
        unwritableRetryDelay: Duration = .seconds(30)
    ) {
        self.outbox = outbox
        self.devices = devices
        self.senders = senders
        self.metrics = metrics
        self.logger = logger
        self.waiters = waiters
        self.maxInFlight = max(1, maxInFlight)
        logsDebug = logger.level <= .debug
        self.claimBatch = max(1, claimBatch)
        self.derivesCollapseID = derivesCollapseID
        self.unwritableRetryDelay = unwritableRetryDelay
        (deliveries, deliveryInput) = AsyncStream.makeStream(of: Delivery.self)
    }

    /// Wakes the worker: new rows may be due. Safe from any thread, never blocks.
    public nonisolated func wake() {
        signal.signal()
    }

    /// Starts draining; `tick` is how often due retries are looked for when nothing else wakes it, and
    /// `leaseRenewal` how often held claims are renewed (default: the store's `leaseRenewalInterval`; none
    /// when its claims never lapse).
    func start(tick: Duration, leaseRenewal: Duration? = nil) {
        guard runTask == nil else { return }
        runTask = Task { await self.run() }
        consumeTask = Task { await self.consume() }
        let signal = self.signal
        tickTask = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                signal.signal()
            }
        }
        if let interval = leaseRenewal ?? outbox.leaseRenewalInterval, renewsLeases {
            renewTask = Task { [weak self] in
                var delay = interval
                while !Task.isCancelled {
                    try? await Task.sleep(for: delay)
                    guard let self else { return }
                    await self.renewHeld(now: Date())
                    // A renewal that could not be written is tried again sooner (with back-off), before
                    // the leases it was to extend run out.
                    let failures = await self.leaseRenewalFailures
                    delay = failures == 0 ? interval : min(Self.completeRetryDelay(after: failures), interval)
                }
            }
        }
    }

    /// Stops claiming and waits until in-flight sends finished or `deadline` passed.
    func stop(deadline: Duration) async {
        stopping = true
        tickTask?.cancel()
        signal.signal()
        await runTask?.value
        defer {
            renewTask?.cancel()
            if inFlight == 0 && flushes == 0 { deliveryInput.finish() }
        }
        if !isIdle {
            let timer = Task { [weak self] in
                try? await Task.sleep(for: deadline)
                await self?.releaseIdleWaiters()
            }
            await withCheckedContinuation { idleWaiters.append($0) }
            timer.cancel()
        }
        // Past the deadline, outcomes that still cannot be written are given up (`abandon`), and so are
        // rows refused for good.
        stopped = true
        abandonUnwritable()
    }

    /// Nothing left to do but rows refused for good: no sends out, no outcomes waiting or being written.
    private var isIdle: Bool { inFlight == unwritable.count && flushes == 0 }

    func releaseIdleWaiters() {
        let waiting = idleWaiters
        idleWaiters = []
        for waiter in waiting { waiter.resume() }
    }

    private func run() async {
        while !stopping {
            let room = maxInFlight - inFlight
            // Claim in large batches: with sends out, wait until half a batch is free again, so claims (and
            // the completions that follow them) are fewer, larger transactions.
            let threshold = inFlight == 0 ? 1 : max(1, min(claimBatch, maxInFlight) / 2)
            if room >= threshold {
                do {
                    let claim = try await outbox.claim(limit: min(room, claimBatch), now: Date())
                    if !claim.expired.isEmpty { await expired(claim.expired) }
                    if !claim.isEmpty {
                        launch(claim.items)
                        continue
                    }
                    if !claim.expired.isEmpty { continue }
                } catch {
                    logger.error("outbox.claim_failed", [("error", "\(error)")])
                }
            }
            await signal.wait()
        }
    }

    /// Rows that expired before they could be sent: final, so waiters and metrics hear of them now.
    private func expired(_ ids: [String]) async {
        metrics.recordPushes(app: "", outcome: "expired", reason: "Expired", count: ids.count)
        if !(await waiters.isEmpty) {
            await waiters.completed(Dictionary(uniqueKeysWithValues: ids.map { ($0, OutboxState.expired) }))
        }
    }

    private func consume() async {
        for await delivery in deliveries { apply(delivery) }
    }

    private func apply(_ delivery: Delivery) {
        let seconds = Self.seconds(since: delivery.started)
        var completions: [OutboxCompletion] = []
        var sent: [Sent] = []
        completions.reserveCapacity(delivery.results.count)
        sent.reserveCapacity(delivery.results.count)
        var failures = 0
        // Rows are read in place: an accepted row (most of them) gives its id, attempt and receipt, no copy.
        delivery.items.withUnsafeBufferPointer { items in
            for result in delivery.results {
                let index = result.index
                completions.append(
                    OutboxCompletion(id: items[index].id, attempt: items[index].attempts, result: result.delivery, receipt: items[index].receipt))
                switch result.delivery {
                case .accepted: sent.append(Sent(app: delivery.app, item: logsDebug ? items[index] : nil))
                case .rejected: sent.append(Sent(app: delivery.app, item: items[index]))
                case .failed:
                    failures += 1
                    sent.append(Sent(app: delivery.app, item: items[index]))
                }
            }
        }
        metrics.recordSends(
            seconds: seconds, app: delivery.app, environment: delivery.environment.name,
            answered: delivery.results.count - failures, transportFailures: failures)
        finished(completions, sent)
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func finished(_ completions: [OutboxCompletion], _ sent: [Sent]) {
        completed.append(Outcomes(completions: completions, sent: sent))
        startFlush()
    }

    /// Starts a write of the outcomes waiting unless `maxFlushes` run, or one runs while writes fail (it
    /// retries alone).
    func startFlush() {
        guard flushes == 0 || (flushes < Self.maxFlushes && completeFailures == 0) else { return }
        flushes += 1
        Task { await self.flush() }
    }

    /// Writes what waits, one batch at a time (`write`): all outcomes waiting, and apart from them the
    /// rows refused for good that are due again. Another write may run beside this one; each takes what
    /// waits when it starts, so a row's outcome is in one write at a time.
    private func flush() async {
        while !completed.isEmpty || !retrying.isEmpty {
            // While writes fail, only one retries (after its back-off); another running leaves it the rows.
            if completeFailures > 0 && flushes > 1 { break }
            var pieces: [Outcomes] = []
            if !completed.isEmpty { pieces.append(completed) }
            if !retrying.isEmpty { pieces.append(retrying) }
            completed = Outcomes()
            retrying = Outcomes()
            if renewsLeases { for piece in pieces { for completion in piece.completions { held[completion.id] = nil } } }
            await write(pieces)
        }
        flushes -= 1
        if isIdle { releaseIdleWaiters() }
    }

    /// How long to wait before writing outcomes again after `failures` failed writes in a row: 50 ms,
    /// doubling, at most 2 s (a full disk or a database away for a while costs one write every 2 s).
    static func completeRetryDelay(after failures: Int) -> Duration {
        min(.milliseconds(50 << min(max(failures - 1, 0), 6)), .seconds(2))
    }
}
