import Foundation

let usage = """
    usage: push-bench <command> [options]    (each command prints one JSON line)
      mock    --write-credentials DIR [--port 0] [--accept-all] [--latency-ms N] [--max-streams N]
              [--reject-percent P] [--drop-limit-after-rejection] [--ignore-stdin]
              prints `listening PORT`; runs until stdin closes (unless --ignore-stdin) or SIGTERM/SIGINT
      client  --port P --ca F --cert F --key F [-n 200000] [-m 1000] [--connections 1] [--payload-bytes 256]
              [--max-streams 1000] [--latencies] [--token HEX] [--batch K]
              --batch K: send(batch:) in chunks of K, at most -m pending (default: -m callers of send)
      payload --payload-bytes B --out FILE     the request body the client sends, for h2load/aioapns
      store   [-n 200000] [--batch 1000]       B8: outbox enqueue+claim+complete cycles/s
      drops   [--reporters 1000] [--rounds 5] [--store memory|sqlite]  B9: profile-drop report latency p50/p99
    """

let commandLine = CommandLine.arguments
do {
    guard commandLine.count >= 2 else { throw UsageError(description: "missing command") }
    let arguments = try Arguments(commandLine.dropFirst(2))
    switch commandLine[1] {
    case "mock": try MockCommand.run(arguments)
    case "client": try await ClientCommand.run(arguments)
    case "payload": try Payload.write(arguments)
    case "store": try await StoreCommand.run(arguments)
    case "drops": try await DropsCommand.run(arguments)
    case "-h", "--help", "help": Output.line(usage)
    default: throw UsageError(description: "unknown command \(commandLine[1])")
    }
} catch let error as UsageError {
    Output.error("push-bench: \(error)\n\(usage)")
    exit(2)
} catch {
    Output.error("push-bench: \(error)")
    exit(1)
}
