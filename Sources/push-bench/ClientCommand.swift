import APNS
import APNSCore
import Foundation
import PushIO

/// `push-bench client`: `APNSClient` throughput and CPU per notification against a running server.
///
/// `rate` counts only notifications APNs accepted; rejections and transport errors are reported beside
/// it (`rejected`, `errors`, `first_error`), and the summary marks a run with any of them invalid.
enum ClientCommand {
    static func run(_ arguments: Arguments) async throws {
        let host = arguments.string("host") ?? "127.0.0.1"
        let port = try arguments.int("port", 0)
        guard port > 0 else { throw UsageError(description: "missing --port") }
        let caPEM = try String(contentsOfFile: try arguments.required("ca"), encoding: .utf8)
        let total = try arguments.int("count", 200_000)
        let inFlight = max(1, try arguments.int("in-flight", 1000))
        let connections = max(1, try arguments.int("connections", 1))
        let payload = try Payload.bytes(arguments)
        let token = try DeviceToken(arguments.string("token") ?? String(repeating: "ab", count: 32))
        let topic = arguments.string("topic") ?? MockCommand.bundleID
        let recordLatencies = arguments.flag("latencies")
        // --batch K: send(batch:) in chunks of K with at most -m pending, instead of -m callers of send.
        let batch = try arguments.int("batch", 0)
        // The callers' tasks run on the client's loop thread (its task executor) unless --global-executor.
        let onLoop = !arguments.flag("global-executor")

        var configuration = APNSClientConfiguration(
            credentials: .pem(certificatePath: try arguments.required("cert"), keyPath: try arguments.required("key")),
            environment: .custom(host: host, port: port, isDevelopment: true),
            connections: connections, trustedCAPEM: caPEM)
        configuration.maxPendingRequests = batch > 0 ? inFlight : max(configuration.maxPendingRequests, inFlight * 2)
        configuration.maxConcurrentStreams = try arguments.int("max-streams", 1000)
        configuration.requestTimeout = .seconds(try arguments.double("timeout", 60))
        if let url = arguments.string("proxy") ?? ProcessInfo.processInfo.environment["PUSH_APNS_PROXY"] {
            do { configuration.proxy = try APNSProxy(url: url) } catch {
                throw UsageError(description: "--proxy: \(error)")
            }
        }
        let client = try APNSClient(configuration: configuration)
        let notification = APNSNotification(token: token, topic: topic, pushType: .alert, payload: payload)

        // Warm-up: open every connection and settle the pools before the clock starts.
        let warmUpCount = min(total, inFlight * 2)
        let executor: (any TaskExecutor)? = onLoop ? client.taskExecutor : nil
        let warmUp =
            batch > 0
            ? await Self.sendBatches(client, notification, total: warmUpCount, chunk: batch, executor: executor)
            : await Self.send(client, notification, total: warmUpCount, inFlight: inFlight, latencies: false, executor: executor)

        let clock = ContinuousClock()
        let cpuStart = ProcessCPU.microseconds()
        let start = clock.now
        let tally =
            batch > 0
            ? await Self.sendBatches(client, notification, total: total, chunk: batch, executor: executor)
            : await Self.send(
                client, notification, total: total, inFlight: inFlight, latencies: recordLatencies, executor: executor)
        let seconds = (clock.now - start).seconds
        let cpu = ProcessCPU.microseconds() - cpuStart
        await client.shutdown()

        var report = Report("client")
        report.add("n", total)
        report.add("in_flight", inFlight)
        report.add("connections", connections)
        report.add("entry", batch > 0 ? "send(batch:) chunks of \(batch)" : "send, \(inFlight) callers")
        report.add("executor", onLoop ? "client loop" : "global")
        report.add("payload_bytes", payload.count)
        report.add("proxy", configuration.proxy?.description ?? "none")
        report.add("seconds", seconds)
        report.add("rate", Double(tally.accepted) / seconds)
        report.add("answered_rate", Double(tally.accepted + tally.rejected) / seconds)
        report.add("warmup_n", warmUpCount)
        report.add("cpu_us_per_notification", cpu / Double(total))
        report.add("accepted", tally.accepted)
        report.add("rejected", tally.rejected)
        report.add("errors", tally.errors)
        report.add("warmup_errors", warmUp.errors)
        report.add("warmup_rejected", warmUp.rejected)
        if recordLatencies {
            let sorted = tally.latencies.sorted()
            report.add("p50_ms", quantile(sorted, 0.50) * 1000)
            report.add("p99_ms", quantile(sorted, 0.99) * 1000)
            // The distribution for bench/charts.py: the 0th, 1st, ..., 100th percentile.
            report.add("latency_percentiles_ms", (0...100).map { quantile(sorted, Double($0) / 100) * 1000 })
        }
        if let error = tally.firstError { report.add("first_error", error) }
        report.add("peak_rss_kib", ProcessCPU.peakRSSKiB())
        report.print()
    }

    struct Tally: Sendable {
        var accepted = 0
        var rejected = 0
        var errors = 0
        var firstError: String?
        var latencies: [Double] = []

        mutating func merge(_ other: Tally) {
            accepted += other.accepted
            rejected += other.rejected
            errors += other.errors
            firstError = firstError ?? other.firstError
            latencies += other.latencies
        }
    }

    /// Sends `total` copies of `notification` from `inFlight` concurrent senders, whose tasks prefer
    /// `executor` (nil: the global executor).
    static func send(
        _ client: APNSClient, _ notification: APNSNotification, total: Int, inFlight: Int,
        latencies: Bool, executor: (any TaskExecutor)?
    ) async -> Tally {
        let workers = min(inFlight, max(total, 1))
        return await withTaskGroup(of: Tally.self) { group in
            for worker in 0..<workers {
                let share = total / workers + (worker < total % workers ? 1 : 0)
                group.addTask(executorPreference: executor) {
                    var tally = Tally()
                    if latencies { tally.latencies.reserveCapacity(share) }
                    let clock = ContinuousClock()
                    for _ in 0..<share {
                        let start = latencies ? clock.now : nil
                        do {
                            let outcome = try await client.send(notification)
                            if outcome.isAccepted { tally.accepted += 1 } else { tally.rejected += 1 }
                        } catch {
                            tally.errors += 1
                            if tally.firstError == nil { tally.firstError = String(describing: error) }
                        }
                        if let start { tally.latencies.append((clock.now - start).seconds) }
                    }
                    return tally
                }
            }
            var total = Tally()
            for await tally in group { total.merge(tally) }
            return total
        }
    }
}

/// The request body shared by every client: `{"aps":{"alert":"xxx…"}}` padded to the requested size.
enum Payload {
    static func bytes(_ arguments: Arguments) throws(UsageError) -> [UInt8] {
        make(size: try arguments.int("payload-bytes", 256))
    }

    static func make(size: Int) -> [UInt8] {
        let frame = #"{"aps":{"alert":""}}"#
        let filler = String(repeating: "x", count: max(0, size - frame.utf8.count))
        return Array(#"{"aps":{"alert":"\#(filler)"}}"#.utf8)
    }

    /// `push-bench payload --payload-bytes B --out FILE`: writes the body for h2load and aioapns.
    static func write(_ arguments: Arguments) throws {
        let body = try bytes(arguments)
        try Data(body).write(to: URL(fileURLWithPath: try arguments.required("out")))
    }
}
