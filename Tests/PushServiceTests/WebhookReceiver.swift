import Foundation
import PushSync

/// `Tests/Webhooks/webhook-receiver.py` as a child process: a real HTTP server outside this process that
/// checks every request's signature and reports requests and events on its standard output, which the
/// tests wait on line by line.
final class WebhookReceiver: Sendable {
    /// The receiver script in the source tree.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Webhooks/webhook-receiver.py").path

    private let process: Process
    private let input: FileHandle
    private let output = LineWaiter()

    /// Starts the receiver with `secret` on `port` (0: any free port) answering in `mode`.
    static func start(secret: String, port: Int = 0, mode: String = "ok") async throws -> WebhookReceiver {
        let receiver = try WebhookReceiver(secret: secret, port: port, mode: mode)
        guard await receiver.waitFor(timeout: 30, { $0.contains { $0.hasPrefix("PORT ") } }) else {
            throw ReceiverError("the receiver did not start")
        }
        return receiver
    }

    private init(secret: String, port: Int, mode: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", Self.script, "--secret", secret, "--port", "\(port)", "--mode", mode]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        self.process = process
        self.input = stdin.fileHandleForWriting
        try process.run()
        let partial = PThreadLock("")
        stdout.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            let complete = partial.withLock { partial -> [String] in
                partial += String(decoding: data, as: UTF8.self)
                var complete: [String] = []
                while let newline = partial.firstIndex(of: "\n") {
                    complete.append(String(partial[..<newline]))
                    partial = String(partial[partial.index(after: newline)...])
                }
                return complete
            }
            for line in complete { output.append(line) }
        }
    }

    private var portLine: String? { output.lines.first { $0.hasPrefix("PORT ") } }

    /// The port it listens on (after `start`).
    var port: Int { portLine.flatMap { Int($0.dropFirst(5)) } ?? 0 }

    /// Every output line so far.
    var lines: [String] { output.lines }

    /// The `EVENT` lines: (id, type, repeat).
    var events: [(id: String, type: String, repeated: Bool)] {
        lines.compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 4, words[0] == "EVENT" else { return nil }
            return (words[1], words[2], words[3] == "repeat")
        }
    }

    /// Waits until `predicate` holds for the output lines; false after `timeout` seconds.
    func waitFor(timeout: Double = 60, _ predicate: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        await output.waitFor(timeout: timeout, predicate)
    }

    /// Switches the answer mode (`ok`, `500`, `hang`) and waits for the acknowledgement.
    func setMode(_ mode: String) async {
        let before = lines.filter { $0 == "MODE \(mode)" }.count
        input.write(Data("mode \(mode)\n".utf8))
        _ = await waitFor { lines in lines.filter { $0 == "MODE \(mode)" }.count > before }
    }

    /// Kills the receiver (the endpoint goes down: connections are refused).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// The receiver could not be started.
struct ReceiverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
