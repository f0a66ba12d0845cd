import APNSCore
import APNSMock
import Foundation
import PushStore
import PushStoreSQL
import PushTLSTesting
import TestSupport

extension ChaosRun {
    /// The rows a killed instance held in flight when it died: apns-id → the end of its lease; or why they
    /// are not known (then the kill fails the verdict).
    struct KilledRows: Sendable {
        var time: Date
        var leases: [String: Date]
        var unknown: String? = nil
    }

    /// The rows of `SELECT apns_id, lease_until` (milliseconds since 1970) as apns-id → end of lease. A row
    /// that is not an id and a whole number of milliseconds throws, naming it: a lease read as 1970 would
    /// make every resend look late enough.
    static func heldRows(_ rows: [[String]]) throws -> [String: Date] {
        var leases: [String: Date] = [:]
        for row in rows where row != [""] {
            guard row.count == 2, !row[0].isEmpty, let millis = Int64(row[1]) else {
                throw ChaosClusterError("an in-flight row that does not read as apns-id|lease_until: \(row.joined(separator: "|"))")
            }
            leases[row[0]] = Date(timeIntervalSince1970: Double(millis) / 1000)
        }
        return leases
    }

    /// The instance to kill: of the instances named in `held` (rows of owner and in-flight count, as the
    /// outbox answers), the one holding the most rows in flight; `fallback` when none of `ids` holds any. A kill
    /// that lands on an instance with nothing in flight tests no lease, and the verdict fails it.
    static func victim(held rows: [[String]], ids: [String], fallback: Int) -> Int {
        var best: (index: Int, rows: Int)?
        for row in rows where row.count == 2 {
            guard let index = ids.firstIndex(of: row[0]), let count = Int(row[1]), count > 0 else { continue }
            if best == nil || count > best!.rows { best = (index, count) }
        }
        return best?.index ?? fallback
    }

    /// `run` for `plan.instances` > 1: the instances share one throwaway PostgreSQL database behind haproxy,
    /// the load goes through haproxy, and each SIGKILL hits the instance holding the most rows in flight (the next one when none holds any), which restarts under a new id.
    static func runCluster(_ plan: ChaosPlan, progress: @escaping @Sendable (String) -> Void) async throws -> ChaosReport {
        let started = Date()
        let stage = try Stage(plan)
        let mock = stage.mock
        defer { mock.stop() }
        var report = ChaosReport(plan: plan)
        var findings = ChaosClusterFindings()
        findings.instances = plan.instances
        findings.leaseSeconds = plan.lease / .seconds(1)

        let cluster = try await ChaosCluster.start(
            binary: plan.serverBinary, arguments: stage.arguments, count: plan.instances, leaseSeconds: plan.lease / .seconds(1),
            outbox: plan.serverOutbox, directory: plan.workDirectory)
        let observer: PostgresOutboxRepository
        do {
            let database = try await PostgresDatabase.open(url: cluster.databaseURL, poolSize: 2, instanceID: "chaos-observer")
            observer = PostgresOutboxRepository(database: database, lease: plan.lease)
        } catch {
            await cluster.abandon()
            throw error
        }
        defer { observer.database.close() }
        progress(
            "chaos: \(plan.instances) push-server instances on PostgreSQL behind haproxy on port \(cluster.balancerPort); mock APNs on \(mock.port); posting \(plan.pushes) notifications"
        )

        let target = ChaosTarget(port: cluster.balancerPort)
        let poster = ChaosLoad(plan: plan, target: target, apiKey: stage.apiKey)
        let killer = Task { () -> (killed: [KilledRows], depths: [Int], problem: String?) in
            var killed: [KilledRows] = []
            var depths: [Int] = []
            for (index, threshold) in plan.killThresholds.enumerated() {
                if let missed = await awaitKill(index, at: threshold, plan: plan, poster: poster, mock: mock) {
                    return (killed, depths, missed)
                }
                var ids: [String] = []
                for instance in 0..<plan.instances { ids.append(await cluster.instanceID(instance)) }
                let held = (try? await cluster.query("SELECT owner, count(*) FROM outbox WHERE state = 'in_flight' GROUP BY owner")) ?? []
                let victim = Self.victim(held: held, ids: ids, fallback: (index + 1) % plan.instances)
                let (id, time) = await cluster.kill(victim)
                // The instance is dead: what it holds in flight now stays leased to it until the lease ends.
                var leases: [String: Date] = [:]
                var unknown: String?
                do {
                    leases = try heldRows(
                        await cluster.query("SELECT apns_id, lease_until FROM outbox WHERE state = 'in_flight' AND owner = '\(id)'"))
                } catch {
                    unknown = "\(error)"
                }
                killed.append(KilledRows(time: time, leases: leases, unknown: unknown))
                depths.append((try? await observer.depth()) ?? -1)
                do {
                    try await cluster.restart(victim)
                } catch {
                    return (killed, depths, "restart \(depths.count) failed: \(error)")
                }
                progress(
                    "chaos: SIGKILL \(depths.count) of \(id) after \(threshold) \(index == 0 ? "acknowledged" : "accepted") with "
                        + "\(leases.count) rows in flight, \(depths[index]) to deliver; restarted as \(await cluster.instanceID(victim))")
            }
            return (killed, depths, nil)
        }
        let load = await poster.run()
        progress("chaos: \(load.acknowledged) acknowledged, \(load.unansweredPosts) posts unanswered; waiting for the kills")
        let (killed, depths, killProblem) = await killer.value
        report.record(load: load, depths: depths, killProblem: killProblem)

        let rows: Int
        do {
            rows = try await observer.counts().values.reduce(0, +)
        } catch {
            await cluster.abandon()
            throw error
        }
        report.deliveredInTime = await awaitDelivery(of: rows, mock: mock, outbox: observer, plan: plan, progress: progress)
        report.finalExitStatus = await cluster.stop()

        let items = try await observer.allItems()
        reconcile(&report, load: load, mock: mock, batchSize: plan.batchSize, rows: items)
        judge(
            &findings, killed: killed, records: mock.records(), resets: mock.resets(),
            answerWithin: Double(plan.maxJitter.components.seconds) + Double(plan.maxJitter.components.attoseconds) / 1e18)
        findings.leaseInconsistencies =
            Int(
                try await cluster.query(
                    """
                    SELECT (SELECT count(*) FROM outbox WHERE (state <> 'in_flight' AND (owner IS NOT NULL OR lease_until IS NOT NULL))
                        OR (state = 'in_flight' AND (owner IS NULL OR lease_until IS NULL)))
                        + (SELECT count(*) FROM outbox_state WHERE (state IN ('queued', 'in_flight')) <> (due IS NOT NULL)
                            OR (state IN ('queued', 'in_flight')) = (ended_at IS NOT NULL))
                        + (SELECT count(*) FROM outbox_segments WHERE (owner IS NULL) <> (lease_until IS NULL))
                        + (\(PostgresOutboxRepository.miscountedRangesSQL))
                        + (\(PostgresOutboxRepository.strayRowsSQL))
                    """
                ).first?.first ?? "") ?? -1
        findings.indexCheck = await checkIndexes(cluster)
        report.integrity = findings.indexCheck
        report.cluster = findings
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Compares the sends of every killed instance's in-flight rows with their leases, and sorts the
    /// duplicates by cause: a kill, a reset that cut off an answer still owed, or nothing (a failure).
    /// `answerWithin`: the mock's longest answer delay, in seconds (a row it saw longer ago than that before a
    /// kill had been answered).
    static func judge(
        _ findings: inout ChaosClusterFindings, killed: [KilledRows], records: [MockAPNSRecord], resets: [MockAPNSReset],
        answerWithin: TimeInterval = 0
    ) {
        var byID: [String: [MockAPNSRecord]] = [:]
        var lastOnConnection: [Int: Date] = [:]
        for record in records {
            byID[record.apnsID, default: []].append(record)
            lastOnConnection[record.connectionID] = max(lastOnConnection[record.connectionID] ?? record.time, record.time)
        }
        findings.kills = []
        findings.stagesAtKills = []
        for kill in killed {
            var finding = ChaosClusterFindings.Kill(held: Set(kill.leases.keys), heldUnknown: kill.unknown)
            findings.stagesAtKills.append(
                Self.stages(of: kill, records: byID, answerWithin: answerWithin, lastOnConnection: lastOnConnection))
            // What the dead instance wrote just before it died is still in the socket and reaches the mock
            // after the kill: records within a second of it, on a connection that falls silent then, are
            // the dead instance's own last sends, not resends.
            let grace = kill.time.addingTimeInterval(1)
            for (apnsID, leaseEnd) in kill.leases {
                let later = (byID[apnsID] ?? []).filter { $0.time > kill.time }
                let resends = later.filter { $0.time >= grace || (lastOnConnection[$0.connectionID] ?? $0.time) >= grace }
                findings.lastSendsOfTheDead += later.count - resends.count
                guard let first = resends.min(by: { $0.time < $1.time }) else { continue }
                finding.resent.insert(apnsID)
                // The database's clock and the mock's are the same machine's; a millisecond covers rounding.
                finding.resentBeforeLease += resends.filter { $0.time < leaseEnd.addingTimeInterval(-0.001) }.count
                let wait = first.time.timeIntervalSince(kill.time)
                findings.earliestResendAfterKill = min(findings.earliestResendAfterKill ?? wait, wait)
            }
            findings.kills.append(finding)
        }
        let resetsByConnection = Dictionary(grouping: resets, by: \.connectionID)
        // An acceptance is cut off when its connection was reset while its answer was still owed: the
        // request had arrived and the client had not received the answer. A reset of the same connection
        // before the request came or after the answer was delivered explains nothing.
        func cutOff(_ record: MockAPNSRecord) -> Bool {
            (resetsByConnection[record.connectionID] ?? []).contains { $0.owed(streamID: record.streamID) }
        }
        // Each held row to the last kill that held it (a row taken over and held again by a later victim
        // goes to that kill).
        var killOf: [String: Int] = [:]
        for (index, kill) in killed.enumerated() { for apnsID in kill.leases.keys { killOf[apnsID] = index } }
        for (apnsID, sends) in byID {
            let acceptances = sends.filter(\.isAccepted)
            guard acceptances.count > 1 else { continue }
            let extra = acceptances.count - 1
            if let kill = killOf[apnsID] {
                findings.duplicatesOfKilledInFlight += extra
                findings.kills[kill].duplicates += extra
            } else if acceptances.dropLast().allSatisfy(cutOff) {
                findings.duplicatesAfterReset += extra
            } else {
                findings.unexplainedDuplicates += extra
                if findings.unexplainedExamples.count < 5 {
                    // Times in seconds after the first kill, so the sends can be placed against the kills.
                    let origin = killed.first?.time ?? sends[0].time
                    let detail = sends.sorted { $0.time < $1.time }.map { send in
                        let reset = resetsByConnection[send.connectionID] != nil
                        return String(format: "%+.3f s", send.time.timeIntervalSince(origin))
                            + " on connection \(send.connectionID) stream \(send.streamID)"
                            + (cutOff(send) ? " (reset while owed)" : reset ? " (connection reset, answer not owed then)" : "")
                            + (send.isAccepted ? " accepted" : " refused")
                    }
                    findings.unexplainedExamples.append("\(apnsID): " + detail.joined(separator: "; "))
                }
            }
        }
    }

    /// Where `kill`'s held rows stood when it came, from the mock's records (by apns-id) up to the kill.
    ///
    /// A record's time is when the mock decided the request, which is after the instance sent it: a busy
    /// mock reads what the instance wrote just before it died after the kill. Such a record (within a
    /// second of the kill, on a connection that falls silent then: `judge`'s last sends of the dead) is a
    /// row that was sent and awaited its answer, not an unsent one. `lastOnConnection`: the time of each
    /// connection's last record.
    static func stages(
        of kill: KilledRows, records byID: [String: [MockAPNSRecord]], answerWithin: TimeInterval, lastOnConnection: [Int: Date] = [:]
    ) -> ChaosClusterFindings.Stages {
        var stages = ChaosClusterFindings.Stages()
        var ages: [TimeInterval] = []
        let grace = kill.time.addingTimeInterval(1)
        for apnsID in kill.leases.keys {
            let records = byID[apnsID] ?? []
            guard let last = records.filter({ $0.time <= kill.time }).max(by: { $0.time < $1.time }) else {
                let sentByTheDead = records.contains {
                    $0.time > kill.time && $0.time < grace && (lastOnConnection[$0.connectionID] ?? $0.time) < grace
                }
                if sentByTheDead { stages.awaitingAnswer += 1 } else { stages.unsent += 1 }
                continue
            }
            let age = kill.time.timeIntervalSince(last.time)
            if age <= answerWithin {
                stages.awaitingAnswer += 1
            } else {
                stages.answered += 1
                ages.append(age)
            }
        }
        if !ages.isEmpty { stages.answeredAgeMedian = ages.sorted()[ages.count / 2] }
        return stages
    }

    /// `amcheck`'s B-tree check (with every heap tuple looked up) over the indexes of the outbox tables.
    private static func checkIndexes(_ cluster: ChaosCluster) async -> String {
        do {
            _ = try await cluster.query("CREATE EXTENSION IF NOT EXISTS amcheck")
            let checked = try await cluster.query(
                """
                SELECT count(bt_index_check(i.indexrelid, true)) FROM pg_index i
                WHERE i.indrelid IN ('outbox_pushes'::regclass, 'outbox_state'::regclass, 'outbox_segments'::regclass)
                """)
            return (Int(checked.first?.first ?? "") ?? 0) > 0 ? "ok" : "no index checked"
        } catch {
            return "\(error)"
        }
    }
}
