import APNSCore
import Foundation
import ProfileDrop
import PushStore
import PushStoreSQL

/// `push-bench drops --reporters 1000 --store memory|sqlite|postgres`: B9, report latency with that many
/// concurrent reporters, on the given store (`sqlite`: a fresh database file in WAL mode, as push-server runs
/// it; `postgres`: the empty database `--database URL`, shared by `--instances N` match services, each with
/// its own connection pool, the reports spread over them as a load balancer would).
///
/// Each round registers `reporters` new users in pairs; every user then reports its partner at the same
/// moment, so each pair makes one pending and one matched report.
///
/// With `--perf-control FIFO` (and `--perf-ack FIFO`), a `perf record --control fifo:FIFO,ACK -D -1` of this
/// process samples only the measured rounds: the setup (registering every user and device) is left out.
enum DropsCommand {
    static let topic = "com.example.sniffmeet"

    static func run(_ arguments: Arguments) async throws {
        let reporters = max(2, try arguments.int("reporters", 1000)) & ~1
        let rounds = max(1, try arguments.int("rounds", 5))
        let storeKind = arguments.string("store") ?? "memory"
        let repositories: PushRepositories
        var services: [MatchService] = []
        var databases: [PostgresDatabase] = []
        var scratch: String?
        switch storeKind {
        case "memory":
            repositories = .inMemory()
        case "sqlite":
            let directory = NSTemporaryDirectory() + "push-bench-drops-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            scratch = directory
            repositories = try .sqlite(path: directory + "/push.sqlite")
        case "postgres":
            guard let url = arguments.string("database") ?? ProcessInfo.processInfo.environment["PUSH_DATABASE"] else {
                throw UsageError(description: "--store postgres needs --database URL")
            }
            let instances = max(1, try arguments.int("instances", 1))
            var sets: [PushRepositories] = []
            for number in 1...instances {
                sets.append(try await .postgres(url: url, poolSize: try arguments.int("pool", 8), instanceID: "bench-\(number)"))
            }
            repositories = sets[0]
            services = sets.map { MatchService(repositories: $0) }
            databases = sets.compactMap { $0.database as? PostgresDatabase }
        default:
            throw UsageError(description: "--store must be memory, sqlite or postgres, got \(storeKind)")
        }
        if services.isEmpty { services = [MatchService(repositories: repositories)] }
        defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
        let users = repositories.users
        let devices = repositories.devices
        let now = Date()
        for number in 0..<(reporters * rounds) {
            let id = "u\(number)"
            _ = try await users.put(id: id, card: ProfileCard(name: "Owner \(id)", dogName: "Dog \(id)"), now: now)
            let hex = String(number, radix: 16)
            _ = try await devices.register(
                token: try DeviceToken(String(repeating: "0", count: 64 - hex.count) + hex),
                topic: topic, userID: id, environment: .development, now: now)
        }

        let perf = try PerfControl(control: arguments.string("perf-control"), ack: arguments.string("perf-ack"))
        var latencies: [Double] = []
        var outcomes: [String: Int] = [:]
        var errors = 0
        try perf?.send("enable")
        let statisticsStart = databases.map(\.dropStatistics)
        let cpuStart = ProcessCPU.microseconds()
        let clock = ContinuousClock()
        let start = clock.now
        for round in 0..<rounds {
            let base = round * reporters
            let results = await withTaskGroup(of: (Double, String?).self) { group in
                for index in 0..<reporters {
                    let user = "u\(base + index)"
                    let peer = "u\(base + (index ^ 1))"
                    let service = services[index % services.count]
                    group.addTask {
                        let started = clock.now
                        let outcome = try? await service.report(
                            userID: user, peerID: peer, distance: 0.1,
                            direction: SIMD3(0, 0, -1))
                        return ((clock.now - started).seconds, outcome.map { $0.outcome.rawValue })
                    }
                }
                var collected: [(Double, String?)] = []
                for await result in group { collected.append(result) }
                return collected
            }
            for (latency, outcome) in results {
                latencies.append(latency)
                if let outcome { outcomes[outcome, default: 0] += 1 } else { errors += 1 }
            }
        }
        let seconds = (clock.now - start).seconds
        let cpu = ProcessCPU.microseconds() - cpuStart
        try perf?.send("disable")
        latencies.sort()
        var report = Report("drops")
        report.add("store", storeKind)
        report.add("instances", services.count)
        report.add("reporters", reporters)
        report.add("rounds", rounds)
        report.add("reports", latencies.count)
        report.add("seconds", seconds)
        report.add("rate", Double(latencies.count) / seconds)
        report.add("p50_ms", quantile(latencies, 0.50) * 1000)
        report.add("p99_ms", quantile(latencies, 0.99) * 1000)
        // The process's CPU over the measured rounds (not the setup), per report: steadier than the rate
        // on a machine shared with other work.
        report.add("cpu_us_per_report", cpu / Double(max(1, latencies.count)))
        for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { report.add("outcome_\(outcome)", count) }
        report.add("errors", errors)
        for (number, database) in databases.enumerated() {
            Self.addStatistics(&report, "i\(number + 1)_", from: statisticsStart[number], to: database.dropStatistics, seconds: seconds)
        }
        report.print()
    }
}

extension DropsCommand {
    /// What one PostgreSQL instance's drop groups did over the measured rounds, per report and per group.
    static func addStatistics(
        _ report: inout Report, _ prefix: String, from start: PostgresDropStatistics, to end: PostgresDropStatistics, seconds: Double
    ) {
        let groups = Double(max(1, end.groups - start.groups))
        let operations = Double(max(1, end.operations - start.operations))
        report.add(prefix + "reports", end.operations - start.operations)
        report.add(prefix + "groups", end.groups - start.groups)
        report.add(prefix + "reports_per_group", operations / groups)
        report.add(prefix + "put_backs_per_report", Double(end.putBacks - start.putBacks) / operations)
        report.add(prefix + "lock_waits", end.lockWaits - start.lockWaits)
        let waits = Double(max(1, end.lockWaits - start.lockWaits))
        report.add(prefix + "lock_wait_ms_per_wait", (end.lockWaitSeconds - start.lockWaitSeconds) * 1000 / waits)
        report.add(prefix + "hold_ms_per_group", (end.holdSeconds - start.holdSeconds) * 1000 / groups)
        report.add(prefix + "queue_ms_per_report", (end.queueSeconds - start.queueSeconds) * 1000 / operations)
        report.add(prefix + "round_trips_per_report", Double(end.roundTrips - start.roundTrips) / operations)
        report.add(prefix + "statements_per_report", Double(end.statements - start.statements) / operations)
        report.add(prefix + "commits_per_s", Double(end.commits - start.commits) / seconds)
        report.add(prefix + "fallbacks", end.fallbacks - start.fallbacks)
    }
}

/// The control fifo of a `perf record --control fifo:CONTROL,ACK` (and its ack fifo): turns sampling on and off.
struct PerfControl {
    let control: FileHandle
    let ack: FileHandle?

    /// Opens the fifos (blocking until perf has them open too); nil without `control`.
    init?(control: String?, ack: String?) throws {
        guard let control else { return nil }
        guard let handle = FileHandle(forWritingAtPath: control) else {
            throw UsageError(description: "--perf-control: cannot open \(control)")
        }
        self.control = handle
        guard let ack else {
            self.ack = nil
            return
        }
        guard let ackHandle = FileHandle(forReadingAtPath: ack) else { throw UsageError(description: "--perf-ack: cannot open \(ack)") }
        self.ack = ackHandle
    }

    /// Writes `command` and, with an ack fifo, waits for perf's answer.
    func send(_ command: String) throws {
        try control.write(contentsOf: Array((command + "\n").utf8))
        guard let ack else { return }
        var answer: [UInt8] = []
        while answer.last != UInt8(ascii: "\n"), let byte = try ack.read(upToCount: 1)?.first { answer.append(byte) }
    }
}
