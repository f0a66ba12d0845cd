import APNSCore
import Foundation
import JSON
import TestSupport

/// Debian's `prometheus` running as a child process on a free loopback port with a throw-away database,
/// for tests that evaluate queries against what it scraped.
final class PrometheusServer: Sendable {
    /// The port of its HTTP API.
    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    /// Starts Prometheus with `configuration` (YAML) in `directory`; returns once it logs that it is ready
    /// for web requests, or throws when it exits before that.
    static func start(configuration: String, directory: String) async throws -> PrometheusServer {
        let configPath = directory + "/prometheus.yml"
        try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)
        let port = try FreePort.pick()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        process.arguments = [
            "--config.file=\(configPath)", "--storage.tsdb.path=\(directory)/tsdb",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=info",
        ]
        let log = Pipe()
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let reader = log.fileHandleForReading
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // Its log is read to the end on a thread of its own (so it never blocks on a full pipe).
            Thread {
                var text = ""
                var ready = false
                while case let data = reader.availableData, !data.isEmpty {
                    guard !ready else { continue }
                    text += String(decoding: data, as: UTF8.self)
                    if text.contains("Server is ready to receive web requests.") {
                        ready = true
                        continuation.resume()
                    }
                }
                if !ready { continuation.resume(throwing: PrometheusError(message: "prometheus exited before it was ready:\n\(text)")) }
            }.start()
        }
        return PrometheusServer(port: port, process: process)
    }

    /// The `data.result` of an instant query (`/api/v1/query`); throws unless the answer is a success.
    func query(_ expression: String) async throws -> [JSONValue] {
        let json = try await get("/api/v1/query", ["query": expression])
        guard json["status"]?.stringValue == "success", let result = json["data"]?["result"]?.arrayValue else {
            throw PrometheusError(message: "query \(expression) failed: \(json)")
        }
        return result
    }

    /// A GET on the HTTP API with `parameters` in the query string, as JSON.
    func get(_ path: String, _ parameters: [String: String] = [:]) async throws -> JSONValue {
        var components = URLComponents()
        components.path = path
        components.queryItems = parameters.map { URLQueryItem(name: $0.key, value: $0.value) }
        // '+' is a space in a query string; URLComponents leaves it alone.
        let target = components.string!.replacingOccurrences(of: "+", with: "%2B")
        let response = try await TestHTTPClient(port: port, apiKey: nil).send("GET", target)
        guard let json = response.json else {
            throw PrometheusError(message: "\(path): status \(response.status), not JSON")
        }
        return json
    }

    /// Stops it and waits for it to end.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Why the Prometheus under test could not be used.
struct PrometheusError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
