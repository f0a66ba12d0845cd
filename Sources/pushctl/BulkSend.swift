import APNSCore
import Foundation
import JSON

/// `send --tokens-file`: batches of tokens, a progress bar on a terminal (plain lines otherwise),
/// and a summary by outcome and reason.
struct BulkSend {
    let client: ServiceClient
    let push: PushOptions
    let tokens: [String]
    let batchSize: Int
    let wait: Bool
    let format: OutputFormat

    func run() async throws -> ExitCode {
        let start = Date()
        var tally = PushTally()
        var done = 0
        let progress = Progress(total: tokens.count, terminal: Console.stdoutIsTerminal && format == .table)
        let path = wait ? "/v1/pushes?wait=true" : "/v1/pushes"
        var batches = 0
        for offset in stride(from: 0, to: tokens.count, by: batchSize) {
            let batch = tokens[offset..<min(offset + batchSize, tokens.count)]
            var body = push.requestMembers
            body["tokens"] = .array(batch.map { .string($0) })
            let response: ServiceClient.Response
            do {
                response = try await client.send("POST", path, body: .object(body))
            } catch {
                progress.finish()
                Console.err("pushctl: sent \(done) of \(tokens.count) before the failure below")
                throw error
            }
            tally.add(response.json)
            done += batch.count
            batches += 1
            progress.update(done: done, elapsed: Date().timeIntervalSince(start))
        }
        progress.finish()
        let seconds = Date().timeIntervalSince(start)
        if format != .table {
            var summary = tally.json.objectValue ?? [:]
            summary["total"] = .int(Int64(tokens.count))
            summary["batches"] = .int(Int64(batches))
            summary["incomplete_batches"] = .int(Int64(tally.incomplete))
            summary["seconds"] = .double((seconds * 1000).rounded() / 1000)
            format.print(.object(summary)) {}
        } else {
            Console.out(
                "sent \(tokens.count) tokens in \(batches) batches in \(String(format: "%.1f", seconds))s (\(Int(Double(tokens.count) / max(seconds, 0.001)))/s)"
            )
            Console.table(["OUTCOME", "COUNT"], tally.byOutcome.keys.sorted().map { [$0, String(tally.byOutcome[$0] ?? 0)] })
            if !tally.byReason.isEmpty {
                Console.table(["REASON", "COUNT"], tally.byReason.keys.sorted().map { [$0, String(tally.byReason[$0] ?? 0)] })
            }
            if tally.incomplete > 0 {
                Console.out("\(tally.incomplete) batch(es) were not complete when the wait ended; check them with 'pushctl pushes get <id>'")
            }
        }
        return tally.undelivered > 0 ? ExitCode.rejected : ExitCode.ok
    }
}

/// Progress output: a redrawn bar on a terminal (stdout), plain lines on stderr otherwise.
struct Progress {
    let total: Int
    let terminal: Bool

    func update(done: Int, elapsed: Double) {
        let rate = Double(done) / max(elapsed, 0.001)
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let percent = total > 0 ? done * 100 / total : 100
        if terminal {
            let width = 30
            let filled = total > 0 ? done * width / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            Console.outRaw("\r[\(bar)] \(done)/\(total) \(percent)%  \(Int(rate))/s  ETA \(Self.duration(eta))   ")
        } else {
            Console.err("progress: \(done)/\(total) (\(percent)%) \(Int(rate))/s ETA \(Self.duration(eta))")
        }
    }

    func finish() {
        if terminal { Console.outRaw("\n") }
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}
