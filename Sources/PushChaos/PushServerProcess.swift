import Foundation

/// A `push-server` binary running as a child process, ready once it has printed `listening on HOST:PORT`.
///
/// Its standard output is read to the end on a thread of its own (so the child never blocks on a full
/// pipe); standard error goes to `logPath` when given, otherwise nowhere.
///
/// `Sendable` as checked by the compiler: its state is two `let`s, Foundation's `Process` (itself `Sendable`)
/// and the port.
public final class PushServerProcess: Sendable {
    private let process: Process
    /// The port the server listens on.
    public let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// The process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Starts `binary` with `arguments` and returns once it listens; throws when it exits first.
    public static func start(binary: String, arguments: [String], logPath: String? = nil) async throws -> PushServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        if let logPath {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        let reader = output.fileHandleForReading
        let port: Int = try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var buffer = ""
                var found: Int?
                while true {
                    let data = reader.availableData
                    if data.isEmpty { break }
                    guard found == nil else { continue }
                    buffer += String(decoding: data, as: UTF8.self)
                    if let line = buffer.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                        let port = Int(line.split(separator: ":").last ?? "")
                    {
                        found = port
                        continuation.resume(returning: port)
                    }
                }
                if found == nil {
                    continuation.resume(throwing: PushServerProcessError.exitedBeforeListening(binary))
                }
            }
            thread.start()
        }
        return PushServerProcess(process: process, port: port)
    }

    /// Sends `signal` and waits for the process to end; returns its termination status.
    @discardableResult
    public func stop(_ signal: Int32) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Why a child `push-server` could not be used.
public enum PushServerProcessError: Error, CustomStringConvertible {
    /// The binary ended (or closed its output) before printing its port.
    case exitedBeforeListening(String)

    public var description: String {
        switch self {
        case .exitedBeforeListening(let binary): "\(binary) exited before it printed 'listening on'"
        }
    }
}
