import ArgumentParsing
import Foundation

let usage = """
    usage: push-bench <command> [options]    (each command prints one JSON line; <command> --help lists its options)
      mock    --write-credentials DIR [--port 0] [--accept-all] [--latency-ms N] [--no-unique-ids] [--max-streams N]
              [--reject-percent P] [--drop-limit-after-rejection] [--ignore-stdin]
              prints `listening PORT`; runs until stdin closes (unless --ignore-stdin) or SIGTERM/SIGINT
      client  --port P --ca F --cert F --key F [-n 200000] [-m 1000] [--connections 1] [--payload-bytes 256]
              [--max-streams 1000] [--latencies] [--token HEX] [--batch K] [--global-executor]
              --batch K: send(batch:) in chunks of K, at most -m pending (default: -m callers of send)
              --global-executor: callers' tasks on the global executor (default: the client's loop thread)
      payload --payload-bytes B --out FILE     the request body the client sends, for h2load/aioapns
      store   [-n 200000] [--batch 1000]       B8: outbox enqueue+claim+complete cycles/s
      drops   [--reporters 1000] [--rounds 5] [--store memory|sqlite]  B9: profile-drop report latency p50/p99
    """

/// Each command: its options and what it runs.
let commands: [String: (options: [OptionSpec], run: (Arguments) async throws -> Void)] = [
    "mock": (BenchOptions.mock, { try MockCommand.run($0) }),
    "client": (BenchOptions.client, { try await ClientCommand.run($0) }),
    "payload": (BenchOptions.payload, { try Payload.write($0) }),
    "store": (BenchOptions.store, { try await StoreCommand.run($0) }),
    "drops": (BenchOptions.drops, { try await DropsCommand.run($0) }),
]

let commandLine = CommandLine.arguments
do {
    guard commandLine.count >= 2 else { throw UsageError(description: "missing command") }
    let name = commandLine[1]
    if ["-h", "--help", "help"].contains(name) {
        Output.line(usage)
        exit(0)
    }
    guard let command = commands[name] else { throw UsageError(description: "unknown command \(name)") }
    let arguments = try Arguments(Array(commandLine.dropFirst(2)), options: command.options)
    if arguments.wantsHelp {
        Output.line((["usage: push-bench \(name) [options]", "", "OPTIONS:"] + OptionHelp.lines(command.options)).joined(separator: "\n"))
        exit(0)
    }
    try await command.run(arguments)
} catch let error as UsageError {
    Output.error("push-bench: \(error)\n\(usage)")
    exit(64)
} catch {
    Output.error("push-bench: \(error)")
    exit(1)
}
