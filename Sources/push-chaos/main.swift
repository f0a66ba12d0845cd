import Foundation
import JSON
import PushChaos

/// `push-chaos`: push-server under a faulty mock APNs and SIGKILLs; prints the summary, exit 0 when it passed.
let usage = """
    usage: push-chaos --server PATH [--work DIR] [--pushes N] [--kills N] [--batch N] [--concurrency N]
                      [--goaway-every N] [--close-every N] [--rate-429 P] [--rate-503 P] [--jitter-ms N]
                      [--goaway-close-ms N] [--limit-flip 0|1] [--instances N] [--lease-s N] [--json FILE] [--keep]
      --goaway-close-ms N  the mock closes each connection N ms after its GOAWAY, answered or not
      --limit-flip 1       the mock lowers MAX_CONCURRENT_STREAMS to 1 after each rejection, back after a success
      --instances N        N > 1: N instances on one throwaway PostgreSQL database behind haproxy; each kill
                           hits the next instance, which restarts under a new instance id
      --lease-s N          their outbox lease (default 10, push-server's minimum)
      With --kills 0 and --close-every 0 nothing is cut: any notification accepted twice fails the run.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("push-chaos: \(message)\n\(usage)\n".utf8))
    exit(64)
}

func parse() -> (options: [String: String], keep: Bool) {
    var options: [String: String] = [:]
    var keep = false
    var arguments = CommandLine.arguments.dropFirst()
    while let flag = arguments.popFirst() {
        if flag == "--keep" {
            keep = true
            continue
        }
        guard flag.hasPrefix("--"), let value = arguments.popFirst() else { fail("bad argument '\(flag)'") }
        options[String(flag.dropFirst(2))] = value
    }
    return (options, keep)
}
let (options, keep) = parse()
let known: Set = [
    "server", "work", "pushes", "kills", "batch", "concurrency", "goaway-every", "close-every",
    "rate-429", "rate-503", "jitter-ms", "goaway-close-ms", "limit-flip", "json", "instances", "lease-s",
]
if let unknown = options.keys.first(where: { !known.contains($0) }) { fail("unknown option --\(unknown)") }
guard let server = options["server"] else { fail("--server is required") }

@MainActor func integer(_ name: String, _ fallback: Int) -> Int {
    guard let text = options[name] else { return fallback }
    guard let value = Int(text), value >= 0 else { fail("--\(name) must be a whole number, got '\(text)'") }
    return value
}

@MainActor func rate(_ name: String, _ fallback: Double) -> Double {
    guard let text = options[name] else { return fallback }
    guard let value = Double(text), (0...1).contains(value) else { fail("--\(name) must be in 0...1, got '\(text)'") }
    return value
}

let work = options["work"] ?? NSTemporaryDirectory() + "push-chaos-\(ProcessInfo.processInfo.processIdentifier)"
var plan = ChaosPlan(serverBinary: server, workDirectory: work)
plan.pushes = integer("pushes", plan.pushes)
plan.kills = integer("kills", plan.kills)
plan.batchSize = max(1, integer("batch", plan.batchSize))
plan.concurrency = max(1, integer("concurrency", plan.concurrency))
plan.goAwayEvery = integer("goaway-every", plan.goAwayEvery)
plan.abruptCloseEvery = integer("close-every", plan.abruptCloseEvery)
plan.tooManyRequestsRate = rate("rate-429", plan.tooManyRequestsRate)
plan.serviceUnavailableRate = rate("rate-503", plan.serviceUnavailableRate)
plan.maxJitter = Double(integer("jitter-ms", Int(plan.maxJitter * 1000))) / 1000
if options["goaway-close-ms"] != nil { plan.closeAfterGoAway = Double(integer("goaway-close-ms", 0)) / 1000 }
plan.dropStreamLimitAfterRejection = integer("limit-flip", 0) != 0
plan.instances = max(1, integer("instances", plan.instances))
plan.leaseSeconds = Double(max(10, integer("lease-s", Int(plan.leaseSeconds))))

do {
    let report = try await ChaosRun.run(plan) { print($0) }
    print(report.summary)
    if let path = options["json"] {
        try Data(report.json.serialized()).write(to: URL(fileURLWithPath: path))
    }
    if !keep { try? FileManager.default.removeItem(atPath: work) }
    exit(report.passed ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("push-chaos: cannot run: \(error)\n".utf8))
    exit(70)
}
