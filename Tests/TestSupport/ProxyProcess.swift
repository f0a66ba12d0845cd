import Foundation

/// A real proxy from Debian on a free loopback port, for the egress proxy tests: `tinyproxy` (HTTP
/// CONNECT, optionally with Basic auth) or `danted` (SOCKS5, optionally with username auth against the
/// system account that `Tests/Proxies/socks-test-user.sh` sets up). Started in the foreground; ready once
/// it logs that it listens (no polling); its log is kept for the failure messages.
public final class ProxyProcess: Sendable {
    /// The loopback port it listens on.
    public let port: Int
    /// `http://…` or `socks5://…` with the credentials it was started with.
    public let url: String
    /// The same URL with a wrong password (for the refusal tests).
    public let urlWithWrongPassword: String?
    private let process: SpawnedProcess
    private let log: ProcessLog
    private let directory: URL

    private init(process: SpawnedProcess, log: ProcessLog, port: Int, url: String, wrongURL: String?, directory: URL) {
        self.process = process
        self.log = log
        self.port = port
        self.url = url
        urlWithWrongPassword = wrongURL
        self.directory = directory
    }

    /// tinyproxy on `port` (a free one by default), with `BasicAuth` when `credentials` are given.
    public static func tinyproxy(credentials: (user: String, password: String)? = nil, port: Int? = nil) async throws -> ProxyProcess {
        let port = try port ?? FreePort.pick()
        let directory = try scratch("tinyproxy")
        var lines = ["Port \(port)", "Listen 127.0.0.1", "Timeout 600", "MaxClients 200", "LogLevel Info"]
        if let credentials { lines.append("BasicAuth \(credentials.user) \(credentials.password)") }
        let config = directory.appendingPathComponent("tinyproxy.conf")
        try (lines.joined(separator: "\n") + "\n").write(to: config, atomically: true, encoding: .utf8)
        let auth = credentials.map { "\($0.user):\($0.password)@" } ?? ""
        let wrong = credentials.map { "http://\($0.user):not-\($0.password)@127.0.0.1:\(port)" }
        return try await start(
            "/usr/bin/tinyproxy", ["-d", "-c", config.path], ready: "Accepting connections",
            port: port, url: "http://\(auth)127.0.0.1:\(port)", wrongURL: wrong, directory: directory)
    }

    /// danted on a free port; with `authenticated`, `socksmethod: username` and the test account.
    public static func danted(authenticated: Bool = true) async throws -> ProxyProcess {
        let port = try FreePort.pick()
        let directory = try scratch("danted")
        let config = directory.appendingPathComponent("danted.conf")
        try """
        logoutput: stderr
        internal: 127.0.0.1 port = \(port)
        external: 127.0.0.1
        socksmethod: \(authenticated ? "username" : "none")
        clientmethod: none
        user.privileged: root
        user.unprivileged: nobody
        client pass { from: 127.0.0.1/32 to: 0.0.0.0/0 }
        socks pass {
            from: 127.0.0.1/32 to: 0.0.0.0/0
            command: connect
            log: connect
        }

        """.write(to: config, atomically: true, encoding: .utf8)
        var url = "socks5://127.0.0.1:\(port)"
        var wrong: String?
        if authenticated {
            let password = try SOCKSTestAccount.password()
            url = "socks5://\(SOCKSTestAccount.user):\(password)@127.0.0.1:\(port)"
            wrong = "socks5://\(SOCKSTestAccount.user):not-\(password)@127.0.0.1:\(port)"
        }
        return try await start(
            "/usr/sbin/danted", ["-f", config.path, "-N", "1", "-p", directory.appendingPathComponent("pid").path],
            ready: "running", port: port, url: url, wrongURL: wrong, directory: directory)
    }

    private static func scratch(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-proxy-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func start(
        _ executable: String, _ arguments: [String], ready: String, port: Int, url: String,
        wrongURL: String?, directory: URL
    ) async throws -> ProxyProcess {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ProxyProcessError("\(executable) is missing: run `make deps` (tinyproxy, dante-server)")
        }
        let process = try SpawnedProcess(executable, arguments)
        let log = ProcessLog()
        let proxy = ProxyProcess(process: process, log: log, port: port, url: url, wrongURL: wrongURL, directory: directory)
        let started = await log.follow(process.output, until: ready, timeout: 20)
        guard started else {
            proxy.kill()
            throw ProxyProcessError("\(executable) did not start: \(log.text.suffix(2000))")
        }
        return proxy
    }

    /// What the proxy logged so far.
    public var output: String { log.text }

    /// The tunnels to `port` the proxy logged so far: tinyproxy's `Request (…): CONNECT host:port HTTP/1.1`
    /// lines, danted's `pass(…): tcp/connect [: client proxy -> external host.port` lines.
    public func tunnels(toPort port: Int) -> Int {
        Self.tunnels(in: log.text, toPort: port)
    }

    /// Waits until the proxy logged at least `count` tunnels to `port`; throws `DeadlineExceeded` when it
    /// has not by `timeout`, or `ProxyProcessError` when the proxy's output ended first.
    public func waitForTunnels(count: Int, toPort port: Int, within timeout: Duration = .seconds(30)) async throws {
        let log = self.log
        let logged = try await awaitEvent("\(count) tunnel(s) to port \(port) in the proxy's log", within: timeout) {
            await log.wait { Self.tunnels(in: $0, toPort: port) >= count }
        }
        guard logged else { throw ProxyProcessError("the proxy's output ended before \(count) tunnel(s) to port \(port): \(log.text.suffix(2000))") }
    }

    static func tunnels(in text: String, toPort port: Int) -> Int {
        text.split(separator: "\n").reduce(0) { count, line in
            let words = line.split(separator: " ")
            if let request = words.indices.dropFirst().first(where: { words[$0] == "CONNECT" && words[$0 - 1].hasSuffix("):") }),
                request + 1 < words.count, words[request + 1].hasSuffix(":\(port)")
            {
                return count + 1  // tinyproxy
            }
            if line.contains("tcp/connect [") && line.contains(" -> "), let target = words.last, target.hasSuffix(".\(port)") {
                return count + 1  // danted
            }
            return count
        }
    }

    /// Kills the proxy at once (SIGKILL), as a crash would, with the children it forked (its own
    /// process group), and waits for it to be gone.
    public func kill() {
        process.killGroup()
    }

    /// Stops the proxy (SIGKILL: neither proxy reliably ends on SIGTERM), with the children danted
    /// forks, waits for it and removes its files.
    public func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Why a proxy could not be started.
public struct ProxyProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The system account danted checks SOCKS5 user names and passwords against (see socks-test-user.sh).
public enum SOCKSTestAccount {
    /// The account's name.
    public static let user = "push-socks-test"
    static let passwordFile = "/var/lib/push-socks-test/password"

    /// The account's password, setting the account up first when it is missing (needs root).
    public static func password() throws -> String {
        if !FileManager.default.fileExists(atPath: passwordFile) {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Proxies/socks-test-user.sh")
            let setup = try SpawnedProcess("/bin/sh", [script.path])
            _ = setup.output.readDataToEndOfFile()
            setup.killGroup()
        }
        guard let data = FileManager.default.contents(atPath: passwordFile),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
        else { throw ProxyProcessError("no SOCKS test account: run `make deps` as root (Tests/Proxies/socks-test-user.sh)") }
        return text
    }
}
