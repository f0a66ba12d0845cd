import Foundation
import PushSync

/// Send outcomes over the last minutes, for the overview's chart.
///
/// The service keeps running totals of send results (the `push_notifications_total` counters); this samples
/// them in memory every `interval` and keeps the last `capacity` samples, so the chart shows what this
/// instance sent since it started, at most that far back. Nothing is written to the store.
final class ConsoleOutcomeHistory: Sendable {
    /// The outcomes charted, in drawing order.
    static let outcomes = ["accepted", "rejected", "failed", "expired"]

    /// One reading of the totals.
    struct Sample: Sendable, Equatable {
        var time: Date
        var totals: [String: Int]
    }

    /// Time between samples.
    let interval: Duration
    /// Samples kept.
    let capacity: Int
    private let samples = PThreadLock<[Sample]>([])

    init(interval: Duration = .seconds(10), capacity: Int = 61) {
        self.interval = interval
        self.capacity = capacity
    }

    /// The totals of `metrics` by outcome now.
    static func totals(_ metrics: ServiceMetrics) -> [String: Int] {
        var totals: [String: Int] = [:]
        for entry in metrics.pushCounts() { totals[entry.outcome, default: 0] += entry.count }
        return totals
    }

    /// Records `totals` taken at `time`, dropping the oldest sample beyond `capacity`.
    func record(_ totals: [String: Int], at time: Date) {
        samples.withLock { samples in
            samples.append(Sample(time: time, totals: totals))
            if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        }
    }

    /// Samples every `interval` until cancelled.
    func run(metrics: ServiceMetrics) async {
        while !Task.isCancelled {
            record(Self.totals(metrics), at: Date())
            try? await Task.sleep(for: interval)
        }
    }

    /// Per-interval counts by outcome: one entry per pair of consecutive samples, the last pair ending at
    /// `now` with `current` (so the chart includes what happened since the last sample).
    func intervals(current: [String: Int], now: Date) -> [(end: Date, counts: [String: Int])] {
        var readings = samples.withLock { $0 }
        readings.append(Sample(time: now, totals: current))
        guard readings.count >= 2 else { return [] }
        return (1..<readings.count).map { index in
            let (before, after) = (readings[index - 1], readings[index])
            var counts: [String: Int] = [:]
            for outcome in Self.outcomes { counts[outcome] = max(0, (after.totals[outcome] ?? 0) - (before.totals[outcome] ?? 0)) }
            return (after.time, counts)
        }
    }
}
