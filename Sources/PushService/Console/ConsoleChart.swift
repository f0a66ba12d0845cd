import Foundation

/// The overview's outcomes chart as inline SVG: one stacked bar per sampling interval.
enum ConsoleChart {
    /// Bar colours by outcome (presentation attributes: the policy admits no inline `style`).
    static let colours = ["accepted": "#2e9d5b", "rejected": "#d0442f", "failed": "#7a4fc2", "expired": "#c79a1a"]

    /// The chart of `intervals` (oldest first) in `slots` bar places, newest at the right, with a legend of
    /// totals.
    static func svg(_ intervals: [(end: Date, counts: [String: Int])], slots: Int = 60, now: Date) -> String {
        let width = 600.0
        let height = 140.0
        let slots = max(intervals.count, slots, 1)
        let first = slots - intervals.count
        let peak = max(1, intervals.map { $0.counts.values.reduce(0, +) }.max() ?? 0)
        let barWidth = width / Double(slots)
        var bars = ""
        for (index, interval) in intervals.enumerated() {
            var top = height
            for outcome in ConsoleOutcomeHistory.outcomes {
                let count = interval.counts[outcome] ?? 0
                guard count > 0 else { continue }
                let barHeight = height * Double(count) / Double(peak)
                top -= barHeight
                bars += "<rect x=\"\(format(Double(first + index) * barWidth + 1))\" y=\"\(format(top))\" width=\"\(format(max(1, barWidth - 2)))\" "
                bars += "height=\"\(format(barHeight))\" fill=\"\(colours[outcome] ?? "#888")\">"
                bars += "<title>\(count) \(outcome)</title></rect>"
            }
        }
        let minutes = intervals.first.map { Int((now.timeIntervalSince($0.end) / 60).rounded(.up)) } ?? 0
        var totals: [String: Int] = [:]
        for interval in intervals { for (outcome, count) in interval.counts { totals[outcome, default: 0] += count } }
        let legend = ConsoleOutcomeHistory.outcomes.map { outcome in
            "<tspan fill=\"\(colours[outcome] ?? "#888")\">■</tspan> \(outcome) \(totals[outcome] ?? 0)"
        }.joined(separator: "   ")
        return """
            <svg id="outcomes-chart" xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height) + 30)" \
            viewBox="0 0 \(Int(width)) \(Int(height) + 30)" role="img" aria-label="send outcomes per interval">
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="#ffffff" stroke="#d5d9e0"/>
            \(bars)
            <text x="4" y="\(Int(height) + 20)" font-size="12" fill="#1d2330">\(legend)   (tallest bar: \(peak); \
            last \(max(minutes, 1)) min)</text>
            </svg>
            """
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
