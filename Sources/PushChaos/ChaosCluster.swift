import Foundation
import TestSupport

/// The processes of a cluster run: a fresh database on a throwaway PostgreSQL cluster, push-server
/// instances on it (each on a fixed port, restarted on the same port after a kill, under a new instance id)
/// and haproxy in front of them, health-checking `/healthz`.
actor ChaosCluster {
    /// The PostgreSQL cluster (its guard stops it when this process ends).
    let postgres: PostgresTestCluster
    /// The database all instances share.
    let databaseURL: String
    /// Its name, for `psql`.
    let databaseName: String
    /// The port haproxy listens on: where the load goes.
    let balancerPort: Int
    private let binary: String
    private let arguments: [String]
    private let directory: String
    private let ports: [Int]
    private var servers: [PushServerProcess?]
    private var generations: [Int]
    private let balancerPIDFile: String

    /// Starts everything: the database, `count` instances of `binary` with `arguments` (plus port, database,
    /// instance id and a configuration file setting the lease and any other `outbox` settings), then haproxy.
    static func start(
        binary: String, arguments: [String], count: Int, leaseSeconds: Double, outbox: [String: Int] = [:], directory: String
    ) async throws -> ChaosCluster {
        let postgres = try await PostgresTestCluster.shared()
        let url = try await postgres.createDatabase()
        let configPath = directory + "/cluster.json"
        let settings = outbox.sorted { $0.key < $1.key }.map { #", "\#($0.key)": \#($0.value)"# }.joined()
        try Data(#"{"outbox": {"lease_s": \#(leaseSeconds)\#(settings)}, "database_pool_size": 4}"#.utf8)
            .write(to: URL(fileURLWithPath: configPath))
        let ports = try (0..<count).map { _ in try FreePort.pick() }
        let cluster = ChaosCluster(
            postgres: postgres, databaseURL: url, binary: binary,
            arguments: arguments + ["--database", url, "--config", configPath], directory: directory, ports: ports,
            balancerPort: try FreePort.pick())
        for index in 0..<count { try await cluster.launch(index) }
        try await cluster.startBalancer()
        return cluster
    }

    private init(
        postgres: PostgresTestCluster, databaseURL: String, binary: String, arguments: [String], directory: String, ports: [Int],
        balancerPort: Int
    ) {
        self.postgres = postgres
        self.databaseURL = databaseURL
        databaseName = String(databaseURL.split(separator: "/").last ?? "")
        self.binary = binary
        self.arguments = arguments
        self.directory = directory
        self.ports = ports
        self.balancerPort = balancerPort
        servers = Array(repeating: nil, count: ports.count)
        generations = Array(repeating: 0, count: ports.count)
        balancerPIDFile = directory + "/haproxy.pid"
    }

    /// The instance id of instance `index` in its current generation.
    func instanceID(_ index: Int) -> String { "chaos-\(index + 1)-g\(generations[index])" }

    /// The number of instances.
    var count: Int { ports.count }

    private func launch(_ index: Int) async throws {
        let id = instanceID(index)
        try FileManager.default.createDirectory(atPath: directory + "/data-\(index + 1)", withIntermediateDirectories: true)
        servers[index] = try await PushServerProcess.start(
            binary: binary,
            arguments: arguments + ["--port", "\(ports[index])", "--instance-id", id, "--data-dir", directory + "/data-\(index + 1)"],
            logPath: directory + "/logs/\(id).log")
    }

    /// SIGKILLs instance `index`; returns the id it ran under and when it died.
    func kill(_ index: Int) -> (id: String, time: Date) {
        let id = instanceID(index)
        servers[index]?.stop(SIGKILL)
        servers[index] = nil
        return (id, Date())
    }

    /// Starts instance `index` again on its port, under the next generation's id (so the rows its previous
    /// life held stay leased to that one until the lease ends).
    func restart(_ index: Int) async throws {
        generations[index] += 1
        try await launch(index)
    }

    /// Stops every instance with SIGTERM, then haproxy; returns the worst exit status of the instances.
    func stop() -> Int32 {
        var worst: Int32 = 0
        for server in servers.compactMap({ $0 }) {
            let status = server.stop(SIGTERM)
            if status != 0 { worst = status }
        }
        servers = servers.map { _ in nil }
        stopBalancer()
        return worst
    }

    /// SIGKILLs whatever still runs (after a failure).
    func abandon() {
        for server in servers.compactMap({ $0 }) { server.stop(SIGKILL) }
        servers = servers.map { _ in nil }
        stopBalancer()
    }

    /// haproxy in daemon mode: the command returns once the listener is bound, the daemon's pid in a file.
    /// The settings are those of `deploy/cluster/haproxy.cfg.in` (see there why), with faster health checks.
    private func startBalancer() async throws {
        let servers = ports.enumerated().map { "    server push-\($0.offset + 1) 127.0.0.1:\($0.element) check" }.joined(separator: "\n")
        let config = """
            global
                maxconn 4096
            defaults
                mode http
                timeout connect 2s
                timeout client 130s
                timeout server 130s
                timeout http-request 10s
                option http-buffer-request
                option http-server-close
                retries 3
                option redispatch
            frontend push_api
                bind 127.0.0.1:\(balancerPort)
                default_backend push_servers
            backend push_servers
                balance roundrobin
                option httpchk GET /healthz
                http-check expect status 200
                default-server inter 300ms fall 1 rise 1
            \(servers)

            """
        let path = directory + "/haproxy.cfg"
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        // Not Foundation's Process: the daemon outlives the command, and Process would wait for it.
        let process = try SpawnedProcess("/usr/sbin/haproxy", ["-D", "-q", "-f", path, "-p", balancerPIDFile])
        let (status, output) = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: process.waitForExit()) }.start()
        }
        guard status == 0 else { throw ChaosClusterError("haproxy exited \(status): \(output)") }
    }

    private func stopBalancer() {
        guard let text = try? String(contentsOfFile: balancerPIDFile, encoding: .utf8) else { return }
        for pid in text.split(whereSeparator: \.isNewline).compactMap({ Int32($0) }) {
            Foundation.kill(pid, SIGTERM)
        }
        try? FileManager.default.removeItem(atPath: balancerPIDFile)
    }

    /// Rows of `sql` run on the run's database (`psql -At`: one line per row, columns split on `|`).
    func query(_ sql: String) async throws -> [[String]] {
        try await postgres.query(sql, database: databaseName).map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }
}

/// Why a cluster run could not start.
struct ChaosClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
