import Foundation
import PushChaos
import Testing

/// The short form of `make chaos-cluster`: push-server instances as child processes on one throwaway
/// PostgreSQL database behind haproxy, one of them SIGKILLed under load.
@Suite("Chaos: instances on PostgreSQL, one SIGKILLed")
struct ClusterChaosTests {
    @Test(
        "3,000 pushes through three instances behind haproxy, GOAWAYs, 429/503 and jitter, one SIGKILL: none lost, the killed instance's rows resent only after its lease",
        .timeLimit(.minutes(3)))
    func killedInstanceRowsWaitForTheLease() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-chaos-cluster-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var plan = ChaosPlan(serverBinary: BuiltServer.path, workDirectory: directory)
        plan.instances = 3
        plan.lease = .seconds(10)
        plan.pushes = 3_000
        plan.batchSize = 100
        plan.concurrency = 6
        plan.kills = 1
        plan.goAwayEvery = 300
        // No reset: then every duplicate must be one of the rows the killed instance held in flight.
        plan.abruptCloseEvery = 0
        plan.deliveryTimeout = .seconds(120)
        let report = try await ChaosRun.run(plan)
        let cluster = try #require(report.cluster)

        #expect(report.passed, "\(report.summary)")
        #expect(report.lost == 0 && report.disagreements == 0 && report.unaccountedRows == 0, "\(report.summary)")
        #expect(report.acknowledged >= 3_000)
        #expect(report.outboxRows == report.acknowledged + report.storedWithoutAnswer)
        #expect(report.outboxStates["accepted"] == report.outboxRows, "transient faults only: every row ends accepted")
        #expect(report.kills == 1 && report.finalExitStatus == 0)
        // The killed instance held rows in flight; every one went out again after the kill, none before its
        // lease ended (the mock's record times against the lease deadlines read from the database).
        let inFlight = cluster.inFlightAtKills.reduce(0, +)
        #expect(inFlight > 0, "the kill landed with rows in flight: \(cluster.summary)")
        #expect(cluster.resentAfterLease == inFlight, "\(cluster.summary)")
        #expect(cluster.resentBeforeLease == 0, "\(cluster.summary)")
        // Duplicates only among those rows.
        #expect(report.duplicates == cluster.duplicatesOfKilledInFlight, "\(cluster.summary)")
        #expect(report.duplicates <= inFlight)
        #expect(cluster.unexplainedDuplicates == 0 && cluster.duplicatesAfterReset == 0)
        #expect(cluster.leaseInconsistencies == 0 && cluster.indexCheck == "ok")
        #expect(report.goAways > 0)
        #expect((report.rejections["TooManyRequests"] ?? 0) > 0)
    }
}
