import ArgumentParsing
import Foundation
import JSON
import PushChaos

/// `push-chaos`: push-server under a faulty mock APNs and SIGKILLs; prints the summary, exit 0 when it passed.
let options: [OptionSpec] = [
    .value("server", "path", "the push-server binary to run (required)"),
    .value("work", "dir", "where the run keeps its files (default a new directory under the temporary one)"),
    .value("pushes", "n", "notifications to post"),
    .value("kills", "n", "SIGKILLs during the run"),
    .value("batch", "n", "notifications per POST"),
    .value("concurrency", "n", "POSTs in flight"),
    .value("goaway-every", "n", "the mock sends GOAWAY every N streams (0: never)"),
    .value("close-every", "n", "the mock drops a connection every N streams (0: never)"),
    .value("rate-429", "p", "share of answers 429 TooManyRequests, 0...1"),
    .value("rate-503", "p", "share of answers 503 ServiceUnavailable, 0...1"),
    .value("jitter-ms", "n", "the mock's answers wait up to N ms"),
    .value("goaway-close-ms", "n", "the mock closes each connection N ms after its GOAWAY, answered or not"),
    .value("limit-flip", "0|1", "1: the mock lowers MAX_CONCURRENT_STREAMS to 1 after each rejection, back after a success"),
    .value(
        "instances", "n",
        "N > 1: N instances on one throwaway PostgreSQL database behind haproxy; each kill hits the next instance, which restarts under a new instance id"
    ),
    .value("lease-s", "n", "their outbox lease (default 10, push-server's minimum)"),
    .value(
        "failover", "drills",
        "hard,freeze: instead of the APNs faults, the instances (--instances, default 2) on a PostgreSQL primary with a synchronous standby, the primary stopped hard or frozen under load and the standby promoted"
    ),
    .value("call-timeout-s", "n", "with --failover: the instances' database_call_timeout_s (default 5)"),
    .value("max-in-flight", "n", "their outbox.max_in_flight (default: push-server's)"),
    .value("claim-batch", "n", "their outbox.claim_batch (default: push-server's)"),
    .value("json", "file", "write the report as JSON here"),
    .flag("keep", "keep the work directory"),
]
let usage =
    (["usage: push-chaos --server <path> [options]", "", "OPTIONS:"] + OptionHelp.lines(options) + [
        "", "With --kills 0 and --close-every 0 nothing is cut: any notification accepted twice fails the run.",
    ]).joined(separator: "\n")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("push-chaos: \(message)\n\(usage)\n".utf8))
    exit(64)
}

let parsed: ParsedArguments
do {
    parsed = try ParsedArguments(Array(CommandLine.arguments.dropFirst()), options: options)
    _ = try parsed.positionals([])
} catch {
    fail(error.description)
}
if parsed.wantsHelp {
    print(usage)
    exit(0)
}
guard let server = parsed.value("server") else { fail("--server is required") }

@MainActor func integer(_ name: String, _ fallback: Int) -> Int {
    guard let text = parsed.value(name) else { return fallback }
    guard let value = Int(text), value >= 0 else { fail("--\(name) must be a whole number, got '\(text)'") }
    return value
}

@MainActor func rate(_ name: String, _ fallback: Double) -> Double {
    guard let text = parsed.value(name) else { return fallback }
    guard let value = Double(text), (0...1).contains(value) else { fail("--\(name) must be in 0...1, got '\(text)'") }
    return value
}

let work = parsed.value("work") ?? NSTemporaryDirectory() + "push-chaos-\(ProcessInfo.processInfo.processIdentifier)"
var plan = ChaosPlan(serverBinary: server, workDirectory: work)
plan.pushes = integer("pushes", plan.pushes)
plan.kills = integer("kills", plan.kills)
plan.batchSize = max(1, integer("batch", plan.batchSize))
plan.concurrency = max(1, integer("concurrency", plan.concurrency))
plan.goAwayEvery = integer("goaway-every", plan.goAwayEvery)
plan.abruptCloseEvery = integer("close-every", plan.abruptCloseEvery)
plan.tooManyRequestsRate = rate("rate-429", plan.tooManyRequestsRate)
plan.serviceUnavailableRate = rate("rate-503", plan.serviceUnavailableRate)
plan.maxJitter = .milliseconds(integer("jitter-ms", Int(plan.maxJitter / .milliseconds(1))))
if parsed.value("goaway-close-ms") != nil { plan.closeAfterGoAway = .milliseconds(integer("goaway-close-ms", 0)) }
plan.dropStreamLimitAfterRejection = integer("limit-flip", 0) != 0
plan.instances = max(1, integer("instances", plan.instances))
plan.lease = .seconds(max(10, integer("lease-s", Int(plan.lease.components.seconds))))
for name in ["max-in-flight", "claim-batch"] where parsed.value(name) != nil {
    plan.serverOutbox[name.replacingOccurrences(of: "-", with: "_")] = max(1, integer(name, 1))
}

if let drills = parsed.value("failover") {
    let names = drills.split(separator: ",").map(String.init)
    guard !names.isEmpty, names.allSatisfy({ ["hard", "freeze"].contains($0) }) else { fail("--failover takes hard, freeze or hard,freeze") }
    plan.instances = max(1, integer("instances", 2))
    do {
        let (results, json) = try await ChaosFailover.run(
            plan, drills: names, callTimeoutSeconds: Double(integer("call-timeout-s", 5))
        ) { print($0) }
        for drill in results { print(drill.summary) }
        if let path = parsed.value("json") { try Data(json.serialized()).write(to: URL(fileURLWithPath: path)) }
        if !parsed.has("keep") { try? FileManager.default.removeItem(atPath: work) }
        let passed = results.allSatisfy(\.passed)
        print(passed ? "chaos-failover: passed" : "chaos-failover: FAILED")
        exit(passed ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("push-chaos: cannot run: \(error)\n".utf8))
        exit(70)
    }
}

do {
    let report = try await ChaosRun.run(plan) { print($0) }
    print(report.summary)
    if let path = parsed.value("json") {
        try Data(report.json.serialized()).write(to: URL(fileURLWithPath: path))
    }
    if !parsed.has("keep") { try? FileManager.default.removeItem(atPath: work) }
    exit(report.passed ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("push-chaos: cannot run: \(error)\n".utf8))
    exit(70)
}
