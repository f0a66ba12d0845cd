import APNSCore
import APNSMock
import Foundation
import PushStore
import PushStoreSQL
import PushTLSTesting
import TestSupport

/// Runs push-server under a faulty mock APNs and repeated SIGKILLs, then reconciles the outbox with what
/// the mock recorded. Used by `make chaos` (through `push-chaos`) and, smaller, by `make test`.
public enum ChaosRun {
    /// Runs `plan` and returns what happened; throws only when the run cannot start at all.
    /// `progress` receives one line per phase.
    public static func run(_ plan: ChaosPlan, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> ChaosReport {
        if plan.instances > 1 { return try await runCluster(plan, progress: progress) }
        let started = Date()
        let directory = plan.workDirectory
        let stage = try Stage(plan)
        let mock = stage.mock
        defer { mock.stop() }
        let arguments = ["--data-dir", directory + "/data", "--port", "0"] + stage.arguments
        let launch: @Sendable (Int) async throws -> PushServerProcess = { generation in
            try await PushServerProcess.start(
                binary: plan.serverBinary, arguments: arguments,
                logPath: directory + "/logs/push-server-\(generation).log")
        }

        var report = ChaosReport(plan: plan)
        report.duplicatesAllowed = !plan.cutsNothing
        let databasePath = directory + "/data/push.sqlite"
        let first = try await launch(0)
        let target = ChaosTarget(port: first.port)
        progress("chaos: push-server up on port \(first.port); mock APNs on \(mock.port); posting \(plan.pushes) notifications")

        // The killer: the first SIGKILL lands while the API is still taking posts, the others at evenly
        // spread acceptance counts during delivery; each time push-server restarts on the same data at once.
        let poster = ChaosLoad(plan: plan, target: target, apiKey: stage.apiKey)
        let killer = Task { () -> (server: PushServerProcess?, depths: [Int], problem: String?) in
            var server = first
            var depths: [Int] = []  // one per kill: rows still to deliver when the server died (-1: unreadable)
            defer { Task { await target.finishKills() } }
            for (index, threshold) in plan.killThresholds.enumerated() {
                if let missed = await awaitKill(index, at: threshold, plan: plan, poster: poster, mock: mock) {
                    return (server, depths, missed)
                }
                await target.markDown()
                server.stop(SIGKILL)
                // The server is dead, so the depth read now is the depth it died with.
                depths.append((try? await observe(databasePath).depth()) ?? -1)
                do {
                    server = try await launch(depths.count)
                } catch {
                    return (nil, depths, "restart \(depths.count) failed: \(error)")
                }
                await target.publish(port: server.port)
                progress(
                    "chaos: SIGKILL \(depths.count) after \(threshold) \(index == 0 ? "acknowledged" : "accepted") "
                        + "with \(depths[index]) rows to deliver; restarted on port \(server.port)")
            }
            return (server, depths, nil)
        }
        let load = await poster.run()
        progress("chaos: \(load.acknowledged) acknowledged, \(load.unansweredPosts) posts unanswered; waiting for the kills")
        let (last, depths, killProblem) = await killer.value
        report.record(load: load, depths: depths, killProblem: killProblem)
        guard let server = last else {
            report.seconds = Date().timeIntervalSince(started)
            return report
        }

        // Every row stored so far must reach the mock (`awaitDelivery`).
        let observer: SQLiteOutboxRepository
        let rows: Int
        do {
            observer = try observe(databasePath)
            rows = try await observer.counts().values.reduce(0, +)
        } catch {
            server.stop(SIGKILL)  // leave no server behind
            throw error
        }
        report.deliveredInTime = await awaitDelivery(of: rows, mock: mock, outbox: observer, plan: plan, progress: progress)
        report.finalExitStatus = server.stop(SIGTERM)

        let database = try SQLiteDatabase(path: databasePath, recoverInFlight: false)
        report.integrity = try await database.integrityCheck()
        let items = try await SQLiteOutboxRepository(database: database).allItems()
        reconcile(&report, load: load, mock: mock, batchSize: plan.batchSize, rows: items)
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// What both kinds of run start from: the work directory's logs, test credentials, the faulty mock, an
    /// API key, and the push-server arguments that point every instance at them.
    struct Stage {
        let files: TestCredentialFiles
        let mock: MockAPNSServer
        let apiKey: String
        /// API key, topic, APNs credentials and the mock as APNs, at warning log level.
        let arguments: [String]

        init(_ plan: ChaosPlan) throws {
            let directory = plan.workDirectory
            try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
            files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: "com.example.sniffmeet", password: "chaos-password")
            mock = try MockAPNSServer(configuration: mockConfiguration(plan, files: files))
            apiKey = "chaos-" + APNSID.generate()
            arguments = [
                "--api-key-file", try SecretFiles.write(apiKey, to: directory + "/creds/api-key"),
                "--topic", files.bundleID, "--apns-p12", files.clientP12Path, "--apns-password-file", files.clientP12PasswordPath,
                "--apns-host", "127.0.0.1", "--apns-port", "\(mock.port)", "--apns-ca", files.caCertificatePath,
                "--log-level", "warning",
            ]
        }
    }

    /// Waits for the moment of kill `index`: the first once the API acknowledged `threshold` pushes (the
    /// API still taking posts), the others once the mock accepted `threshold` (during delivery). Returns
    /// the problem when that does not happen within the delivery timeout.
    static func awaitKill(_ index: Int, at threshold: Int, plan: ChaosPlan, poster: ChaosLoad, mock: MockAPNSServer) async -> String? {
        let reached = try? await awaitEvent("kill \(index + 1)", within: plan.deliveryTimeout) {
            if index == 0 { await poster.waitForAcknowledged(threshold) } else { await mock.waitForAccepted(count: threshold) }
            return true
        }
        return reached == true ? nil : "kill \(index + 1) never came: \(threshold) not reached"
    }

    /// Waits until every one of the `rows` stored reached the mock (that many distinct apns-ids accepted)
    /// and `outbox` has no row left to send (a row accepted before a kill may still wait to be resent);
    /// false when the delivery timeout passes first.
    static func awaitDelivery(
        of rows: Int, mock: MockAPNSServer, outbox: some OutboxRepository, plan: ChaosPlan,
        progress: @Sendable (String) -> Void
    ) async -> Bool {
        progress("chaos: \(rows) rows stored; waiting for delivery")
        let delivered = try? await awaitEvent("delivery of \(rows) rows", within: plan.deliveryTimeout) {
            await waitForDistinctAccepted(rows, on: mock)
            return await waitForEmptyOutbox(outbox)
        }
        return delivered == true
    }

    static func mockConfiguration(_ plan: ChaosPlan, files: TestCredentialFiles) throws -> MockAPNSServer.Configuration {
        var configuration = try MockAPNSServer.Configuration(credentialFiles: files)
        configuration.goAwayAfterStreams = plan.goAwayEvery > 0 ? plan.goAwayEvery : nil
        configuration.abruptCloseEveryStreams = plan.abruptCloseEvery > 0 ? plan.abruptCloseEvery : nil
        configuration.closeAfterGoAway = plan.closeAfterGoAway
        configuration.dropStreamLimitAfterRejection = plan.dropStreamLimitAfterRejection
        configuration.faultRates = MockFaultRates(
            tooManyRequests: plan.tooManyRequestsRate,
            serviceUnavailable: plan.serviceUnavailableRate)
        configuration.latency = .jitter(min: .zero, max: plan.maxJitter)
        configuration.randomSeed = plan.seed
        return configuration
    }

    /// Waits until the mock has accepted `count` distinct apns-ids. Each acceptance adds at most one new id,
    /// so waiting for `accepted + missing` acceptances never overshoots.
    static func waitForDistinctAccepted(_ count: Int, on mock: MockAPNSServer) async {
        while !Task.isCancelled {
            let accepted = mock.counters().accepted
            let distinct = Set(mock.records().lazy.filter(\.isAccepted).map(\.apnsID)).count
            if distinct >= count { return }
            await mock.waitForAccepted(count: accepted + (count - distinct))
        }
    }

    /// The outbox of the service's database, opened beside it without recovering anything (the service
    /// owns the rows in flight).
    private static func observe(_ databasePath: String) throws -> SQLiteOutboxRepository {
        SQLiteOutboxRepository(database: try SQLiteDatabase(path: databasePath, recoverInFlight: false))
    }

    /// Waits until the outbox holds no queued or in-flight row. The service publishes no event for that, and
    /// the last completions land just after the mock's last answers, so the depth is read every 50 ms.
    static func waitForEmptyOutbox(_ store: some OutboxRepository) async -> Bool {
        while !Task.isCancelled {
            guard let depth = try? await store.depth() else { return false }
            if depth == 0 { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

extension ChaosReport {
    /// A report of a run of `plan`, holding what the plan asks for.
    init(plan: ChaosPlan) {
        self.init()
        plannedPushes = plan.pushes
        plannedKills = plan.kills
        goAwaysPlanned = plan.goAwayEvery > 0
        abruptClosesPlanned = plan.abruptCloseEvery > 0
    }

    /// Takes in the load's outcome and the kills that landed: the queue depth at each, and the problem
    /// that stopped them early, if any.
    mutating func record(load: ChaosLoad.Outcome, depths: [Int], killProblem: String?) {
        kills = depths.count
        depthAtKills = depths
        acknowledged = load.acknowledged
        unansweredPosts = load.unansweredPosts
        slowestPostSeconds = load.slowestPost
        problems = load.problems + (killProblem.map { [$0] } ?? [])
    }

    mutating func disagree(_ problem: String) {
        disagreements += 1
        note(problem)
    }

    mutating func note(_ problem: String) {
        if problems.count < 20 { problems.append(problem) }
    }
}
