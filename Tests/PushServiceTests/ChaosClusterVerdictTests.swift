import APNSCore
import APNSMock
import Foundation
import JSON
import Testing

@testable import PushChaos

/// The cluster chaos verdict as pure functions over what a run found: no database, no processes.
@Suite("Chaos cluster verdict: leases tested, resends exactly the held rows, duplicates only where an answer was cut off")
struct ChaosClusterVerdictTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Findings that pass: one kill that held two rows, both sent again after their lease.
    static var passing: ChaosClusterFindings {
        var findings = ChaosClusterFindings()
        findings.instances = 3
        findings.leaseSeconds = 10
        findings.kills = [.init(held: ["a", "b"], resent: ["a", "b"])]
        findings.leaseInconsistencies = 0
        findings.indexCheck = "ok"
        return findings
    }

    static func record(_ apnsID: String, at seconds: Double, connection: Int, stream: Int, accepted: Bool = true) -> MockAPNSRecord {
        MockAPNSRecord(
            token: String(repeating: "ab", count: 32), topic: "com.example.app", headers: [], payload: [], clientCertificateUID: nil,
            apnsID: apnsID,
            outcome: accepted
                ? .accepted(apnsID: apnsID, uniqueID: nil) : .rejected(APNSRejection(status: 429, reason: .tooManyRequests, apnsID: apnsID)),
            connectionID: connection, time: start.addingTimeInterval(seconds), streamID: stream)
    }

    static func reset(connection: Int, at seconds: Double, owed: [Int]) -> MockAPNSReset {
        MockAPNSReset(
            connectionID: connection, time: start.addingTimeInterval(seconds), owedStreamIDs: owed, unacknowledgedBytes: 0, unsentBytes: 0,
            queuedBytes: 0)
    }

    @Test("a kill that held rows, all of them sent again after the lease, passes")
    func passingFindings() {
        #expect(Self.passing.failures.isEmpty, "\(Self.passing.failures)")
    }

    @Test("a kill with no rows in flight tested no lease: the run fails and says which kill")
    func killWithNothingInFlight() {
        var findings = Self.passing
        findings.kills.append(.init())
        #expect(findings.failures == ["kill 2 landed with no rows in flight: it tested no lease"])
    }

    @Test("rows sent again that are not the rows held fail the run, naming the rows either way")
    func resentIsNotHeld() {
        var findings = Self.passing
        findings.kills = [.init(held: ["a", "b"], resent: ["a"])]
        #expect(findings.failures.count == 1)
        #expect(findings.failures.first?.contains("kill 1") == true && findings.failures.first?.contains("never sent again (b)") == true)
        findings.kills = [.init(held: ["a"], resent: ["a", "c"])]
        #expect(findings.failures.first?.contains("sent again but not held (c)") == true, "\(findings.failures)")
    }

    @Test("held rows that could not be read fail the run with the reason")
    func heldUnknown() {
        var findings = Self.passing
        findings.kills = [.init(heldUnknown: "connection refused")]
        #expect(findings.failures == ["kill 1: the rows it held in flight are unknown (connection refused)"])
    }

    @Test("the held rows read as apns-id and lease end; a lease that does not parse is an error, not 1970")
    func heldRowsParse() throws {
        let leases = try ChaosRun.heldRows([["id-1", "1700000010000"], ["id-2", "1700000011500"]])
        #expect(leases == ["id-1": Date(timeIntervalSince1970: 1_700_000_010), "id-2": Date(timeIntervalSince1970: 1_700_000_011.5)])
        #expect(try ChaosRun.heldRows([]).isEmpty)
        #expect(try ChaosRun.heldRows([[""]]).isEmpty)
        #expect(throws: ChaosClusterError.self) { try ChaosRun.heldRows([["id-1", "2023-11-14 22:13:30"]]) }
        #expect(throws: ChaosClusterError.self) { try ChaosRun.heldRows([["id-1", ""]]) }
        #expect(throws: ChaosClusterError.self) { try ChaosRun.heldRows([["id-1"]]) }
    }

    @Test("the kill goes to the instance holding the most rows in flight; with none holding any, to the next one")
    func victimHoldsRows() {
        let ids = ["chaos-1-g0", "chaos-2-g1", "chaos-3-g0"]
        #expect(ChaosRun.victim(held: [["chaos-1-g0", "12"], ["chaos-3-g0", "40"]], ids: ids, fallback: 1) == 2)
        #expect(ChaosRun.victim(held: [["chaos-2-g1", "3"]], ids: ids, fallback: 0) == 1)
        // A dead generation's rows (still leased to it) do not make a live instance the victim.
        #expect(ChaosRun.victim(held: [["chaos-2-g0", "900"], ["chaos-1-g0", "1"]], ids: ids, fallback: 2) == 0)
        #expect(ChaosRun.victim(held: [], ids: ids, fallback: 2) == 2)
        #expect(ChaosRun.victim(held: [[""]], ids: ids, fallback: 1) == 1)
    }

    @Test("judge: the held rows sent again after the kill make up the kill's resent set; a send before the lease ends is counted")
    func judgeResends() {
        var findings = Self.passing
        let kill = ChaosRun.KilledRows(
            time: Self.start.addingTimeInterval(10),
            leases: ["a": Self.start.addingTimeInterval(15), "b": Self.start.addingTimeInterval(15), "c": Self.start.addingTimeInterval(15)])
        let records = [
            Self.record("a", at: 9, connection: 1, stream: 1), Self.record("a", at: 16, connection: 2, stream: 1),
            Self.record("b", at: 12, connection: 2, stream: 3), Self.record("x", at: 20, connection: 2, stream: 5),
        ]
        ChaosRun.judge(&findings, killed: [kill], records: records, resets: [])
        #expect(findings.kills == [.init(held: ["a", "b", "c"], resent: ["a", "b"], resentBeforeLease: 1, duplicates: 1)])
        #expect(findings.duplicatesAtKills == [1])
        #expect(!findings.failures.isEmpty)
        #expect(findings.failures.contains { $0.contains("never sent again (c)") }, "\(findings.failures)")
        #expect(findings.failures.contains("1 sends of a killed instance's rows before their lease ended"))
    }

    @Test("judge: a duplicate is explained by a reset only when that reset came while the earlier answer was owed")
    func duplicatesAndResets() {
        // "d" accepted on connection 1 stream 7, reset while its answer was owed, then accepted again.
        let records = [
            Self.record("d", at: 1, connection: 1, stream: 7), Self.record("d", at: 2, connection: 3, stream: 1),
            // "e" accepted on connection 1 stream 5, its answer delivered before the reset: not explained.
            Self.record("e", at: 0.5, connection: 1, stream: 5), Self.record("e", at: 2, connection: 3, stream: 3),
            // "f" accepted on connection 2, which was reset too, but only after the answer was delivered.
            Self.record("f", at: 0.5, connection: 2, stream: 1), Self.record("f", at: 2, connection: 3, stream: 5),
        ]
        let resets = [Self.reset(connection: 1, at: 1.5, owed: [7, 9]), Self.reset(connection: 2, at: 1.5, owed: [])]
        var findings = Self.passing
        ChaosRun.judge(&findings, killed: [], records: records, resets: resets)
        #expect(findings.duplicatesAfterReset == 1)
        #expect(findings.unexplainedDuplicates == 2)
        #expect(findings.unexplainedExamples.count == 2)
        #expect(findings.unexplainedExamples.contains { $0.hasPrefix("e:") && $0.contains("answer not owed then") })
        #expect(findings.failures.contains { $0.hasPrefix("2 duplicates outside") }, "\(findings.failures)")
    }

    @Test("judge: a duplicate of a row a killed instance held is the kill's, whatever the resets")
    func duplicatesOfKilledRows() {
        let kill = ChaosRun.KilledRows(time: Self.start.addingTimeInterval(1), leases: ["k": Self.start.addingTimeInterval(2)])
        let records = [Self.record("k", at: 0.5, connection: 1, stream: 1), Self.record("k", at: 3, connection: 2, stream: 1)]
        var findings = Self.passing
        ChaosRun.judge(&findings, killed: [kill], records: records, resets: [])
        #expect(findings.duplicatesOfKilledInFlight == 1 && findings.unexplainedDuplicates == 0)
        #expect(findings.kills == [.init(held: ["k"], resent: ["k"], duplicates: 1)])
        #expect(findings.failures.isEmpty, "\(findings.failures)")
    }

    @Test("judge: a kill's held rows split into unsent, awaiting an answer (seen within the mock's longest delay) and answered")
    func inFlightStages() {
        let kill = ChaosRun.KilledRows(
            time: Self.start.addingTimeInterval(10),
            leases: [
                "u": Self.start.addingTimeInterval(20), "w": Self.start.addingTimeInterval(20), "a": Self.start.addingTimeInterval(20),
                "b": Self.start.addingTimeInterval(20),
            ])
        let records = [
            Self.record("w", at: 9.98, connection: 1, stream: 1), Self.record("a", at: 9.8, connection: 1, stream: 3),
            Self.record("b", at: 9.6, connection: 1, stream: 5), Self.record("u", at: 25, connection: 2, stream: 1),
        ]
        var findings = Self.passing
        ChaosRun.judge(&findings, killed: [kill], records: records, resets: [], answerWithin: 0.05)
        #expect(findings.stagesAtKills.count == 1)
        let stages = findings.stagesAtKills[0]
        #expect(stages.unsent == 1 && stages.awaitingAnswer == 1 && stages.answered == 2)
        #expect(abs((stages.answeredAgeMedian ?? 0) - 0.4) < 1e-6)
    }

    @Test(
        "judge: a held row the mock decided only after the kill, on a connection that falls silent then, was sent (awaiting its answer), not unsent"
    )
    func stagesCountTheLastSendsOfTheDead() {
        let kill = ChaosRun.KilledRows(
            time: Self.start.addingTimeInterval(10), leases: ["s": Self.start.addingTimeInterval(20), "u": Self.start.addingTimeInterval(20)])
        // "s" was in the dead instance's socket: decided 0.3 s after the kill on its connection 1, then sent
        // again after the lease on connection 2 (a duplicate); "u" was sent first after the lease.
        let records = [
            Self.record("s", at: 10.3, connection: 1, stream: 1), Self.record("s", at: 21, connection: 2, stream: 1),
            Self.record("u", at: 21, connection: 2, stream: 3), Self.record("x", at: 25, connection: 2, stream: 5),
        ]
        var findings = Self.passing
        ChaosRun.judge(&findings, killed: [kill], records: records, resets: [], answerWithin: 0.05)
        #expect(findings.kills.first?.duplicates == 1)
        #expect(findings.stagesAtKills == [.init(unsent: 1, awaitingAnswer: 1, answered: 0)])
    }

    @Test("a 502-504 behind the balancer is its retry, unless it is the service's own JSON error (503 database_unavailable)")
    func balancerAnswers() {
        let serviceError = Array(#"{"error":{"code":"database_unavailable","message":"the database is unreachable"}}"#.utf8)
        let haproxy = Array("<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n".utf8)
        #expect(ChaosLoad.classify(status: 503, body: serviceError, balanced: true) == .refusal)
        #expect(ChaosLoad.classify(status: 503, body: haproxy, balanced: true) == .balancerRetry)
        #expect(ChaosLoad.classify(status: 502, body: [], balanced: true) == .balancerRetry)
        #expect(ChaosLoad.classify(status: 504, body: haproxy, balanced: true) == .balancerRetry)
        #expect(ChaosLoad.classify(status: 503, body: haproxy, balanced: false) == .refusal)
        #expect(ChaosLoad.classify(status: 500, body: [], balanced: true) == .refusal)
        #expect(ChaosLoad.classify(status: 429, body: serviceError, balanced: true) == .refusal)
    }

    @Test("judge: duplicates are counted per kill, each going to the last kill that held the row")
    func duplicatesPerKill() {
        let first = ChaosRun.KilledRows(
            time: Self.start.addingTimeInterval(10), leases: ["a": Self.start.addingTimeInterval(15), "b": Self.start.addingTimeInterval(15)])
        let second = ChaosRun.KilledRows(
            time: Self.start.addingTimeInterval(30), leases: ["c": Self.start.addingTimeInterval(35), "b": Self.start.addingTimeInterval(35)])
        let records = [
            Self.record("a", at: 9, connection: 1, stream: 1), Self.record("a", at: 16, connection: 2, stream: 1),
            Self.record("b", at: 9, connection: 1, stream: 3), Self.record("b", at: 29, connection: 2, stream: 3),
            Self.record("b", at: 36, connection: 4, stream: 3),
            Self.record("c", at: 29, connection: 3, stream: 1), Self.record("c", at: 36, connection: 4, stream: 5),
        ]
        var findings = Self.passing
        ChaosRun.judge(&findings, killed: [first, second], records: records, resets: [])
        #expect(findings.duplicatesAtKills == [1, 3])
        #expect(findings.duplicatesOfKilledInFlight == 4)
        #expect(findings.json["duplicates_at_kills"] == [1, 3])
        #expect(findings.summary.contains("(per kill: 1, 3)"), "\(findings.summary)")
    }

    static func record(_ apnsID: String, collapseID: String?, accepted: Bool = true) -> MockAPNSRecord {
        MockAPNSRecord(
            token: String(repeating: "ab", count: 32), topic: "com.example.app",
            headers: collapseID.map { [(APNSHeader.collapseID, $0)] } ?? [], payload: [], clientCertificateUID: nil, apnsID: apnsID,
            outcome: accepted
                ? .accepted(apnsID: apnsID, uniqueID: nil) : .rejected(APNSRejection(status: 503, reason: .serviceUnavailable, apnsID: apnsID)),
            connectionID: 1, time: start)
    }

    @Test("collapse check: a notification accepted twice without one shared collapse id fails the verdict; shared ones pass")
    func collapseCheck() {
        let accepted: [String: [MockAPNSRecord]] = [
            "shared": [Self.record("shared", collapseID: "row-1"), Self.record("shared", collapseID: "row-1")],
            "once": [Self.record("once", collapseID: nil)],
            "different": [Self.record("different", collapseID: "row-2"), Self.record("different", collapseID: "row-3")],
            "none": [Self.record("none", collapseID: nil), Self.record("none", collapseID: nil)],
            "half": [Self.record("half", collapseID: "row-4"), Self.record("half", collapseID: nil)],
        ]
        var report = ChaosReport()
        ChaosRun.collapseCheck(&report, accepted: accepted)
        #expect(report.duplicatesWithoutSharedCollapseID == 3)
        #expect(report.collapseExamples == ["different: row-2, row-3", "half: row-4, -", "none: -, -"])
        #expect(report.failures.contains { $0.hasPrefix("3 notifications accepted twice with different collapse ids: different: row-2, row-3") })
        #expect(report.json["duplicates_without_shared_collapse_id"] == 3)

        var passing = ChaosReport()
        ChaosRun.collapseCheck(&passing, accepted: ["shared": accepted["shared"]!, "once": accepted["once"]!])
        #expect(passing.duplicatesWithoutSharedCollapseID == 0)
        #expect(!passing.failures.contains { $0.contains("collapse") })
    }
}
