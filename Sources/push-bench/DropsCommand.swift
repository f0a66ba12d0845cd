import APNSCore
import Foundation
import ProfileDrop
import PushStore

/// `push-bench drops --reporters 1000 --store memory|sqlite`: B9, report latency with that many concurrent
/// reporters, on the given store (`sqlite`: a fresh database file in WAL mode, as push-server runs it).
///
/// Each round registers `reporters` new users in pairs; every user then reports its partner at the same
/// moment, so each pair makes one pending and one matched report.
enum DropsCommand {
    static let topic = "com.example.sniffmeet"

    static func run(_ arguments: Arguments) async throws {
        let reporters = max(2, try arguments.int("reporters", 1000)) & ~1
        let rounds = max(1, try arguments.int("rounds", 5))
        let storeKind = arguments.string("store") ?? "memory"
        let repositories: PushRepositories
        var scratch: String?
        switch storeKind {
        case "memory":
            repositories = .inMemory()
        case "sqlite":
            let directory = NSTemporaryDirectory() + "push-bench-drops-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            scratch = directory
            repositories = try .sqlite(path: directory + "/push.sqlite")
        default:
            throw UsageError(description: "--store must be memory or sqlite, got \(storeKind)")
        }
        defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
        let users = repositories.users
        let devices = repositories.devices
        let service = MatchService(repositories: repositories)
        let now = Date()
        for number in 0..<(reporters * rounds) {
            let id = "u\(number)"
            _ = try await users.put(id: id, card: ProfileCard(name: "Owner \(id)", dogName: "Dog \(id)"), now: now)
            let hex = String(number, radix: 16)
            _ = try await devices.register(
                token: try DeviceToken(String(repeating: "0", count: 64 - hex.count) + hex),
                topic: topic, userID: id, environment: .development, now: now)
        }

        var latencies: [Double] = []
        var outcomes: [String: Int] = [:]
        var errors = 0
        let clock = ContinuousClock()
        let start = clock.now
        for round in 0..<rounds {
            let base = round * reporters
            let results = await withTaskGroup(of: (Double, String?).self) { group in
                for index in 0..<reporters {
                    let user = "u\(base + index)"
                    let peer = "u\(base + (index ^ 1))"
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
        latencies.sort()
        var report = Report("drops")
        report.add("store", storeKind)
        report.add("reporters", reporters)
        report.add("rounds", rounds)
        report.add("reports", latencies.count)
        report.add("seconds", seconds)
        report.add("rate", Double(latencies.count) / seconds)
        report.add("p50_ms", quantile(latencies, 0.50) * 1000)
        report.add("p99_ms", quantile(latencies, 0.99) * 1000)
        for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { report.add("outcome_\(outcome)", count) }
        report.add("errors", errors)
        report.print()
    }
}
