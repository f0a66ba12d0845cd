import PushChaos
import Testing

/// The chaos verdict: a run passes only when the planned load and faults all happened and the outbox
/// agrees with the mock. Each case takes a passing report and spoils one thing.
@Suite("Chaos verdict")
struct ChaosReportTests {
    static var passing: ChaosReport {
        var report = ChaosReport()
        report.plannedPushes = 3_000
        report.plannedKills = 2
        report.goAwaysPlanned = true
        report.abruptClosesPlanned = true
        report.acknowledged = 3_000
        report.kills = 2
        report.depthAtKills = [1_200, 900]
        report.goAways = 12
        report.abruptCloses = 3
        report.outboxRows = 3_000
        report.outboxStates = ["accepted": 3_000]
        report.delivered = 3_000
        report.integrity = "ok"
        report.deliveredInTime = true
        report.finalExitStatus = 0
        return report
    }

    static let spoilers: [(what: String, spoil: @Sendable (inout ChaosReport) -> Void)] = [
        ("a push not acknowledged", { $0.acknowledged = 2_750 }),
        (
            "a planned kill that never came",
            {
                $0.kills = 1
                $0.depthAtKills = [1_200]
            }
        ),
        ("a kill during delivery with an empty outbox", { $0.depthAtKills = [1_200, 0] }),
        ("an unknown depth at a kill", { $0.depthAtKills = [1_200] }),
        ("no GOAWAY injected", { $0.goAways = 0 }),
        ("no abrupt close injected", { $0.abruptCloses = 0 }),
        ("a problem noted (a poster gave up)", { $0.problems = ["a poster gave up after 51 failed posts in a row"] }),
        ("a row of no post", { $0.unaccountedRows = 1 }),
        ("a lost notification", { $0.lost = 1 }),
        ("a disagreement", { $0.disagreements = 1 }),
        ("a row not final", { $0.outboxStates = ["accepted": 2_999, "queued": 1] }),
        ("delivery not finished", { $0.deliveredInTime = false }),
        ("a corrupt database", { $0.integrity = "row 3 missing from index" }),
        ("an unclean final stop", { $0.finalExitStatus = 1 }),
    ]

    @Test("a complete, agreeing run passes")
    func passingRun() {
        #expect(Self.passing.passed, "\(Self.passing.failures)")
        #expect(Self.passing.summary.hasPrefix("chaos: PASSED"))
    }

    @Test(
        "each missing fault, unacknowledged push or disagreement fails the run and is named",
        arguments: Self.spoilers.indices)
    func spoiledRunFails(index: Int) {
        var report = Self.passing
        Self.spoilers[index].spoil(&report)
        #expect(!report.passed, "\(Self.spoilers[index].what)")
        #expect(report.failures.count == 1, "\(Self.spoilers[index].what): \(report.failures)")
        #expect(report.summary.hasPrefix("chaos: FAILED") && report.summary.contains("FAILED: "))
    }
}
