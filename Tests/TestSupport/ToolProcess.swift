import Foundation

/// Runs a command-line tool (curl, openssl, …) to completion and returns its exit status and output.
public enum ToolProcess {
    /// What the tool printed (standard output and error together) and how it ended.
    public struct Result: Sendable {
        /// The exit status (or the signal that ended it).
        public var status: Int32
        /// Standard output and standard error, interleaved.
        public var output: String
    }

    /// Runs `executable` (a path, or a name looked up on `PATH`) with `arguments`, feeding `input` on
    /// standard input. A tool still running after `timeout` seconds is killed, so a hung peer cannot hang
    /// the suite; the result then says so. It runs in `directory` when given (where a tool leaves its
    /// caches), with `environment` added to this process's own. The waiting happens on a thread of its own, never on the
    /// concurrency pool, so a server in the same process keeps answering the tool.
    public static func run(
        _ executable: String, _ arguments: [String], input: String = "",
        timeout: Double = 60, in directory: String? = nil, environment: [String: String] = [:]
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Swift.Result {
                        try runBlocking(
                            executable, arguments, input: input, timeout: timeout, in: directory, environment: environment)
                    })
            }
            thread.start()
        }
    }

    private static func runBlocking(
        _ executable: String, _ arguments: [String], input: String,
        timeout: Double, in directory: String?, environment: [String: String]
    ) throws -> Result {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        var text = String(decoding: data, as: UTF8.self)
        if process.terminationReason == .uncaughtSignal { text += "\n[\(executable) killed after \(timeout) s]" }
        return Result(status: process.terminationStatus, output: text)
    }
}
