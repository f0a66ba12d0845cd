import Foundation
import PushHTTP2
import PushIO
import PushSync
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

/// Runs `body` on `loop`'s thread and returns its result.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await loop.submit(body)
}

/// Sends one request on `connection` and waits for its end.
///
/// A request without an answer after a minute is recorded as an issue naming its path, and ends as an
/// unknown outcome, so the test goes on to fail instead of hanging.
func send(_ connection: HTTP2ClientConnection, _ request: HTTP2Request) async -> HTTP2Result {
    do {
        return try await awaitEvent("the answer to \(request.path)") {
            await withCheckedContinuation { continuation in
                connection.loop.execute { connection.send(request) { continuation.resume(returning: $0) } }
            }
        }
    } catch {
        Issue.record("\(error)")
        return .failure(.outcomeUnknown("\(error)"))
    }
}

/// Sends many requests at once and waits for all of them, in order.
func sendAll(_ connection: HTTP2ClientConnection, _ requests: [HTTP2Request]) async -> [HTTP2Result] {
    await withTaskGroup(of: (Int, HTTP2Result).self) { group in
        for (index, request) in requests.enumerated() {
            group.addTask { (index, await send(connection, request)) }
        }
        var results = [HTTP2Result?](repeating: nil, count: requests.count)
        for await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}

/// A temporary directory removed at deinit.
final class TemporaryDirectory: Sendable {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "push-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Credentials shared by the tests of this target: one CA, a localhost server, an APNs-style client.
struct Credentials: Sendable {
    let authority: TestCertificateAuthority
    let server: IssuedCredential
    let client: IssuedCredential
    let directory: TemporaryDirectory
    let caFile: String
    let serverCertFile: String
    let serverKeyFile: String

    static let shared: Credentials = {
        let authority = try! TestCertificateAuthority()
        let server = try! authority.issueServerCertificate()
        let client = try! authority.issueClientCertificate(bundleID: "com.example.sniffmeet")
        let directory = TemporaryDirectory()
        let caFile = directory.path + "/ca.pem"
        let certFile = directory.path + "/server.pem"
        let keyFile = directory.path + "/server-key.pem"
        try! authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        try! server.certificatePEM.write(toFile: certFile, atomically: true, encoding: .utf8)
        try! server.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        return Credentials(
            authority: authority, server: server, client: client, directory: directory,
            caFile: caFile, serverCertFile: certFile, serverKeyFile: keyFile)
    }()

    func serverContext(requireClientCertificate: Bool = false) throws -> TLSContext {
        var configuration = TLSServerConfiguration(identity: try server.identity())
        if requireClientCertificate {
            configuration.clientCertificates = .require(trust: .caPEM(authority.certificatePEM))
        }
        return try TLSContext.server(configuration)
    }

    func clientContext(withIdentity: Bool = false, trust: TLSTrust? = nil) throws -> TLSContext {
        var configuration = TLSClientConfiguration()
        configuration.trust = trust ?? .caPEM(authority.certificatePEM)
        if withIdentity { configuration.identity = try client.identity() }
        return try TLSContext.client(configuration)
    }
}

/// A child process whose output is read line by line.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private var buffer = Data()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Reads output until a line contains `marker`; returns everything read so far.
    func waitForLine(containing marker: String) -> String? {
        while true {
            if let text = String(data: buffer, encoding: .utf8), text.contains(marker) { return text }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Reads everything until the process ends, or until `timeLimit` seconds have passed: then the process
    /// is killed (which ends its output) and `timedOut` is true, so a hung child cannot hang the suite.
    func readToEnd(timeLimit: Double) -> (output: String, timedOut: Bool) {
        let watchdog = Watchdog()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit) {
            if watchdog.fire() { kill(pid, SIGKILL) }
        }
        buffer.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let timedOut = !watchdog.disarm()
        return (String(decoding: buffer, as: UTF8.self), timedOut)
    }

    /// Kills the process (SIGKILL: nghttpd ignores SIGTERM) and reaps it.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// A one-shot race between a deadline and the end of a wait: whichever calls first wins.
final class Watchdog: Sendable {
    private let decided = PThreadLock(false)

    /// The deadline passed: true if it came first (the caller should act).
    func fire() -> Bool { decide() }

    /// The wait ended: true if it came before the deadline.
    func disarm() -> Bool { decide() }

    private func decide() -> Bool {
        decided.withLock { decided in
            defer { decided = true }
            return !decided
        }
    }
}
