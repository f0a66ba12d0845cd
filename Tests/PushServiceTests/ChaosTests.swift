import Foundation
import PushChaos
import Testing

/// The short form of `make chaos`: the same harness with fewer pushes and faults scaled to match.
@Suite("Chaos: faulty APNs and SIGKILLs")
struct ChaosTests {
    @Test(
        "3,000 pushes through GOAWAYs, resets, 429/503, jitter and two SIGKILLs: none lost, outbox agrees with the mock",
        .timeLimit(.minutes(3)))
    func shortChaos() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-chaos-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var plan = ChaosPlan(serverBinary: BuiltServer.path, workDirectory: directory)
        plan.pushes = 3_000
        plan.batchSize = 250
        plan.kills = 2
        plan.goAwayEvery = 300
        plan.abruptCloseEvery = 1_000
        plan.deliveryTimeout = .seconds(150)
        let report = try await ChaosRun.run(plan)

        #expect(report.passed, "\(report.summary)")
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.lost == 0)
        #expect(report.disagreements == 0)
        #expect(report.integrity == "ok")
        #expect(report.kills == 2)
        #expect(report.depthAtKills.count == 2)
        #expect(report.depthAtKills.last ?? 0 > 0, "the second kill lands during delivery: \(report.depthAtKills)")
        #expect(report.acknowledged >= 3_000)
        // Both terms are counted in the outbox, apart: rows of acknowledged pushes (by push id) and rows of
        // posts whose answer was cut off (by token); no row may fall outside both.
        #expect(report.unaccountedRows == 0)
        #expect(report.outboxRows == report.acknowledged + report.storedWithoutAnswer)
        #expect(report.storedWithoutAnswer % plan.batchSize == 0, "cut-off posts are stored whole or not at all")
        #expect(report.outboxStates["accepted"] == report.outboxRows, "transient faults only: every row ends accepted")
        // The faults really happened.
        #expect(report.goAways > 0)
        #expect(report.abruptCloses > 0)
        #expect((report.rejections["TooManyRequests"] ?? 0) > 0)
        #expect((report.rejections["ServiceUnavailable"] ?? 0) > 0)
    }
}

/// The case of `make chaos-goaway`, smaller: nothing is cut, so nothing may be accepted twice.
@Suite("Chaos: GOAWAY with a close soon after, and the stream limit flipping to 1")
struct GoAwayChaosTests {
    @Test(
        "6,000 pushes, GOAWAY every 1,000 streams and a close 0.5 s later, 1% 429 + 1% 503 with the limit flipping to 1: 0 duplicates, 0 lost",
        .timeLimit(.minutes(2)))
    func noDuplicatesWhenNothingIsCut() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-chaos-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var plan = ChaosPlan(serverBinary: BuiltServer.path, workDirectory: directory)
        plan.pushes = 6_000
        plan.batchSize = 100
        plan.concurrency = 8
        plan.kills = 0
        plan.abruptCloseEvery = 0
        plan.goAwayEvery = 1_000
        plan.closeAfterGoAway = .milliseconds(500)
        plan.dropStreamLimitAfterRejection = true
        // Answers wait up to 1 s, so at each close the mock still owes some: they go out right before the
        // FIN, where the client used to lose them.
        plan.maxJitter = .seconds(1)
        plan.deliveryTimeout = .seconds(90)
        let report = try await ChaosRun.run(plan)

        #expect(report.passed, "\(report.summary)")
        #expect(report.duplicates == 0, "\(report.summary)")
        #expect(report.lost == 0)
        #expect(report.disagreements == 0)
        #expect(report.outboxStates["accepted"] == report.outboxRows)
        #expect(report.delivered == 6_000)
        #expect(report.goAways >= 5)
        #expect(report.abruptCloses == 0)
        #expect((report.rejections["TooManyRequests"] ?? 0) > 0)
        #expect((report.rejections["ServiceUnavailable"] ?? 0) > 0)
    }
}
