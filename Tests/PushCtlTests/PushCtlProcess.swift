import Dispatch
import Foundation

/// Runs the built `pushctl` binary (found next to the test bundle) and captures what it prints.
struct PushCtlProcess {
    /// What one finished run printed and returned.
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The `pushctl` executable beside the test bundle (`.build/debug/pushctl`).
    static let binary: URL = {
        var candidates: [URL] = []
        let first = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(first.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for directory in candidates {
            var current = directory
            for _ in 0..<4 {
                let candidate = current.appendingPathComponent("pushctl")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                current.deleteLastPathComponent()
            }
        }
        return first.deletingLastPathComponent().appendingPathComponent("pushctl")
    }()

    /// Runs `pushctl arguments` to completion in a fresh working directory holding `files` (relative path → text).
    /// How long a pushctl run may take before the watchdog kills it: two minutes, ten under a sanitizer
    /// (`make sanitize` sets `TSAN_OPTIONS` or `ASAN_OPTIONS`), which makes the process several times slower.
    static let watchdogSeconds: Double = {
        let environment = ProcessInfo.processInfo.environment
        return environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil ? 600 : 120
    }()

    static func run(_ arguments: [String], environment: [String: String] = [:], files: [String: String] = [:]) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushctl-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (path, text) in files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["PUSHCTL_URL"] = nil
        env["PUSHCTL_API_KEY"] = nil
        env["PUSHCTL_P12_PASSWORD"] = nil
        env["PUSHCTL_PROXY"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = directory
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A safety net, not a timing check: a run that never ends (say, a usage error that starts a server
        // instead) is killed after `watchdogSeconds`, so the test fails instead of hanging the suite.
        let watchdog = DispatchWorkItem { [pid = process.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.watchdogSeconds, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }
}

/// A `pushctl mock-apns` child: started, read until it says it listens, stopped with SIGINT.
final class MockAPNSProcess {
    let process = Process()
    let directory: URL
    private let output = Pipe()
    private var buffer = Data()
    /// The `credentials.json` it wrote.
    private(set) var manifest: [String: Any] = [:]
    /// The port it listens on.
    private(set) var port = 0

    init(_ extra: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushctl-mock-\(UUID().uuidString)")
        process.executableURL = PushCtlProcess.binary
        process.arguments = ["mock-apns", "--port", "0", "--write-credentials", directory.path] + extra
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let line = try readLine(containing: "listening on")
        guard let portText = line.split(separator: ":").last, let port = Int(portText) else {
            throw MockError.unexpected(line)
        }
        self.port = port
        let data = try Data(contentsOf: directory.appendingPathComponent("credentials.json"))
        manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    enum MockError: Error {
        case unexpected(String)
        case exited(String)
    }

    /// Blocks until the child prints a line containing `text` (no sleeping: reads block on the pipe).
    func readLine(containing text: String) throws -> String {
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if line.contains(text) { return line }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw MockError.exited(String(decoding: buffer, as: UTF8.self)) }
            buffer.append(chunk)
        }
    }

    func path(_ key: String) -> String { manifest[key] as? String ?? "" }

    /// The arguments `send --direct` needs to reach this mock with the credentials it wrote.
    var directArguments: [String] {
        [
            "send", "--direct", "--cert", path("client_p12"), "--password-file", path("client_p12_password_file"),
            "--host", "127.0.0.1", "--port", String(port), "--ca", path("ca"),
        ]
    }

    /// SIGINT, then the exit status.
    func stop() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
        return process.terminationStatus
    }
}
