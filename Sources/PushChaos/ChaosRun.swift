import APNSCore
import APNSMock
import Foundation
import PushStore
import PushTLS

/// Runs push-server under a faulty mock APNs and repeated SIGKILLs, then reconciles the outbox with what
/// the mock recorded. Used by `make chaos` (through `push-chaos`) and, smaller, by `make test`.
public enum ChaosRun {
    /// Runs `plan` and returns what happened; throws only when the run cannot start at all.
    /// `progress` receives one line per phase.
    public static func run(_ plan: ChaosPlan, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> ChaosReport {
        let started = Date()
        let directory = plan.workDirectory
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: "com.example.sniffmeet",
                                                  password: "chaos-password")
        let mock = try MockAPNSServer(configuration: mockConfiguration(plan, files: files))
        defer { mock.stop() }
        let apiKey = "chaos-" + APNSID.generate()
        let arguments = ["--data-dir", directory + "/data", "--port", "0", "--api-key", apiKey,
                         "--topic", files.bundleID, "--apns-p12", files.clientP12Path, "--apns-password", files.password,
                         "--apns-host", "127.0.0.1", "--apns-port", "\(mock.port)", "--apns-ca", files.caCertificatePath,
                         "--log-level", "warning"]
        let launch: @Sendable (Int) async throws -> PushServerProcess = { generation in
            try await PushServerProcess.start(binary: plan.serverBinary, arguments: arguments,
                                              logPath: directory + "/logs/push-server-\(generation).log")
        }

        var report = ChaosReport()
        let first = try await launch(0)
        let target = ChaosTarget(port: first.port)
        progress("chaos: push-server up on port \(first.port); mock APNs on \(mock.port); posting \(plan.pushes) notifications")

        // The killer: the first SIGKILL lands while the API is still taking posts, the others at evenly
        // spread acceptance counts during delivery; each time push-server restarts on the same data at once.
        let poster = ChaosLoad(plan: plan, target: target, apiKey: apiKey)
        let killer = Task { () -> (PushServerProcess?, Int, String?) in
            var server = first
            var kills = 0
            defer { Task { await target.finishKills() } }
            for (index, threshold) in plan.killThresholds.enumerated() {
                let reached = await within(plan.deliveryTimeout) {
                    if index == 0 { await poster.waitForAcknowledged(threshold) } else { await mock.waitForAccepted(count: threshold) }
                } != nil
                guard reached else { return (server, kills, "kill \(index + 1) never came: \(threshold) not reached") }
                await target.markDown()
                server.stop(SIGKILL)
                kills += 1
                do {
                    server = try await launch(kills)
                } catch {
                    return (nil, kills, "restart \(kills) failed: \(error)")
                }
                await target.publish(port: server.port)
                progress("chaos: SIGKILL \(kills) after \(threshold) \(index == 0 ? "acknowledged" : "accepted"); restarted on port \(server.port)")
            }
            return (server, kills, nil)
        }
        let load = await poster.run()
        progress("chaos: \(load.acknowledged) acknowledged, \(load.unansweredPosts) posts unanswered; waiting for the kills")
        let (last, kills, killProblem) = await killer.value
        report.kills = kills
        report.acknowledged = load.acknowledged
        report.unansweredPosts = load.unansweredPosts
        report.problems = load.problems + (killProblem.map { [$0] } ?? [])
        guard let server = last else {
            report.seconds = Date().timeIntervalSince(started)
            return report
        }

        // Every row stored so far must reach the mock: wait until it accepted that many distinct apns-ids,
        // then until no row is left to send (a row accepted before a kill may still wait to be resent).
        let observer: PushStore, rows: Int
        do {
            observer = try PushStore(path: directory + "/data/push.sqlite", recoverInFlight: false)
            rows = try await observer.outboxCounts().values.reduce(0, +)
        } catch {
            server.stop(SIGKILL)  // leave no server behind
            throw error
        }
        progress("chaos: \(rows) rows stored; waiting for delivery")
        report.deliveredInTime = await within(plan.deliveryTimeout) {
            await waitForDistinctAccepted(rows, on: mock)
            return await waitForEmptyOutbox(observer)
        } == true
        report.finalExitStatus = server.stop(SIGTERM)

        try await reconcile(&report, load: load, mock: mock, databasePath: directory + "/data/push.sqlite")
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    private static func mockConfiguration(_ plan: ChaosPlan, files: TestCredentialFiles) throws -> MockAPNSServer.Configuration {
        var configuration = try MockAPNSServer.Configuration(credentialFiles: files)
        configuration.goAwayAfterStreams = plan.goAwayEvery
        configuration.abruptCloseEveryStreams = plan.abruptCloseEvery
        configuration.faultRates = MockFaultRates(tooManyRequests: plan.tooManyRequestsRate,
                                                  serviceUnavailable: plan.serviceUnavailableRate)
        configuration.latency = .jitter(min: 0, max: plan.maxJitter)
        configuration.randomSeed = plan.seed
        return configuration
    }

    /// Waits until the mock has accepted `count` distinct apns-ids. Each acceptance adds at most one new id,
    /// so waiting for `accepted + missing` acceptances never overshoots.
    private static func waitForDistinctAccepted(_ count: Int, on mock: MockAPNSServer) async {
        while !Task.isCancelled {
            let accepted = mock.counters().accepted
            let distinct = Set(mock.records().lazy.filter(\.isAccepted).map(\.apnsID)).count
            if distinct >= count { return }
            await mock.waitForAccepted(count: accepted + (count - distinct))
        }
    }

    /// Waits until the outbox holds no queued or in-flight row. The service publishes no event for that, and
    /// the last completions land just after the mock's last answers, so the depth is read every 50 ms.
    private static func waitForEmptyOutbox(_ store: PushStore) async -> Bool {
        while !Task.isCancelled {
            guard let depth = try? await store.outboxDepth() else { return false }
            if depth == 0 { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Compares every acknowledged row with the mock's records, and the totals for rows whose post was cut off.
    private static func reconcile(_ report: inout ChaosReport, load: ChaosLoad.Outcome, mock: MockAPNSServer,
                                  databasePath: String) async throws {
        let records = mock.records()
        var acceptedCount: [String: Int] = [:]
        var rejection: [String: String] = [:]
        for record in records {
            if record.isAccepted {
                acceptedCount[record.apnsID, default: 0] += 1
            } else if let reason = record.rejection?.reason {
                rejection[record.apnsID] = reason.rawValue
            }
        }
        let counters = mock.counters()
        report.delivered = acceptedCount.count
        report.duplicates = acceptedCount.values.reduce(0) { $0 + $1 - 1 }
        report.goAways = counters.goAwaysSent
        report.abruptCloses = counters.aborts
        report.streams = counters.streams
        report.rejections = Dictionary(uniqueKeysWithValues: counters.rejectedByReason.map { ($0.key.rawValue, $0.value) })

        let store = try PushStore(path: databasePath, recoverInFlight: false)
        report.integrity = try await store.integrityCheck()
        let states = try await store.outboxCounts()
        report.outboxStates = Dictionary(uniqueKeysWithValues: states.map { ($0.key.rawValue, $0.value) })
        report.outboxRows = states.values.reduce(0, +)
        report.storedWithoutAnswer = report.outboxRows - load.acknowledged

        var acknowledgedAccepted = 0, acknowledgedRows = 0
        for pushID in load.pushIDs {
            let rows = try await store.outboxItems(pushID: pushID)
            acknowledgedRows += rows.count
            for row in rows {
                let deliveredByMock = row.apnsID.map { acceptedCount[$0] != nil } ?? false
                switch row.state {
                case .accepted:
                    acknowledgedAccepted += 1
                    if !deliveredByMock { report.disagree("row \(row.id) is accepted but the mock never accepted it") }
                case .rejected:
                    if deliveredByMock || rejection[row.apnsID ?? ""] != row.lastReason {
                        report.disagree("row \(row.id) is rejected (\(row.lastReason ?? "-")) but the mock recorded otherwise")
                    }
                default:
                    if deliveredByMock { report.disagree("row \(row.id) is \(row.state.rawValue) but the mock accepted it") }
                }
                if !deliveredByMock {
                    report.lost += 1
                    report.note("acknowledged row \(row.id) (\(row.state.rawValue), \(row.lastReason ?? "-")) never reached the mock")
                }
            }
        }
        if acknowledgedRows != load.acknowledged {
            report.lost += max(0, load.acknowledged - acknowledgedRows)
            report.note("\(load.acknowledged) notifications acknowledged but \(acknowledgedRows) rows found for their pushes")
        }
        // Rows of cut-off posts: the mock must have accepted exactly as many other apns-ids as the outbox
        // holds accepted rows beyond the acknowledged ones, and only for tokens of those posts.
        let otherAccepted = (states[.accepted] ?? 0) - acknowledgedAccepted
        let strays = records.filter { $0.isAccepted && load.unansweredTokens.contains($0.token) }
        let strayIDs = Set(strays.map(\.apnsID))
        if strayIDs.count != otherAccepted {
            report.disagree("\(otherAccepted) accepted rows of cut-off posts, but the mock accepted \(strayIDs.count) of their apns-ids")
        }
        if report.delivered != states[.accepted] ?? 0 {
            report.disagree("the mock accepted \(report.delivered) apns-ids, the outbox has \(states[.accepted] ?? 0) accepted rows")
        }
    }

    /// Runs `body`, or gives up after `seconds` (cancelling it) and returns nil.
    static func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension ChaosReport {
    mutating func disagree(_ problem: String) {
        disagreements += 1
        note(problem)
    }

    mutating func note(_ problem: String) {
        if problems.count < 20 { problems.append(problem) }
    }
}
