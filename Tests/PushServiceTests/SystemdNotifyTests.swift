import Foundation
import PushChaos
import PushIO
import Testing

@testable import PushService

@Suite("systemd notify protocol")
struct SystemdNotifyTests {
    @Test("messages reach a path socket and an abstract socket as one datagram each", arguments: [false, true])
    func delivery(abstract: Bool) async throws {
        let socket = try NotifySocket(abstract: abstract)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address]))
        #expect(notifier.ready(status: "listening on 127.0.0.1:1"))
        #expect(notifier.send(["WATCHDOG=1"]))
        #expect(await socket.next(timeout: 10) == "READY=1\nSTATUS=listening on 127.0.0.1:1")
        #expect(await socket.next(timeout: 10) == "WATCHDOG=1")
        #expect(notifier.reloading())
        let reloading = try #require(await socket.next(timeout: 10)).split(separator: "\n")
        #expect(reloading.first == "RELOADING=1" && reloading.last?.hasPrefix("MONOTONIC_USEC=") == true)
    }

    @Test("no notifier without a usable NOTIFY_SOCKET; a socket nobody listens on is a failed send")
    func absent() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
        #expect(!SystemdNotifier(socketPath: "/tmp/push-notify-nobody-\(UUID().uuidString)").watchdog())
        #expect(!SystemdNotifier(socketPath: "/" + String(repeating: "x", count: 200)).watchdog())
    }

    @Test("the watchdog interval is half of WATCHDOG_USEC, and off for another process's WATCHDOG_PID")
    func watchdogInterval() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid() + 1)"]) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"]) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "soon"]) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:]) == nil)
    }

    @Test("watchdog pings come from the event loop's thread until stopped")
    func watchdogOnLoop() async throws {
        let socket = try NotifySocket(abstract: true)
        let loop = EventLoop(name: "watchdog-test")
        defer { loop.shutdown() }
        let watchdog = try await SystemdWatchdog.start(
            loop: loop, interval: .milliseconds(20),
            notifier: SystemdNotifier(socketPath: socket.address))
        for _ in 0..<3 { #expect(await socket.next(timeout: 10) == "WATCHDOG=1") }
        #expect(await watchdog.isPinging)
        await watchdog.stop()
        #expect(await !watchdog.isPinging)
    }

    @Test(
        "push-server tells systemd: READY once it serves, WATCHDOG pings, RELOADING/READY on SIGHUP, STOPPING on SIGTERM",
        .timeLimit(.minutes(2)))
    func pushServer() async throws {
        let socket = try NotifySocket(abstract: false)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-notify-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltServer.path)
        process.arguments = ["--embedded", "--data-dir", directory, "--port", "0", "--log-level", "error"]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = socket.address
        environment["WATCHDOG_USEC"] = "100000"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let start = try #require(await socket.read(until: "READY=1"), "no READY=1 from push-server")
        let status = try #require(start.last?.split(separator: "\n").first { $0.hasPrefix("STATUS=listening on ") })
        let port = try #require(Int(status.split(separator: ":").last ?? ""))
        // Ready means serving: the API answers now, without waiting for anything else.
        #expect(try await TestHTTPClient(port: port, apiKey: nil).send("GET", "/healthz").status == 200)
        #expect(await socket.read(until: "WATCHDOG=1") != nil)
        #expect(await socket.read(until: "WATCHDOG=1") != nil)

        kill(process.processIdentifier, SIGHUP)
        let reload = try #require(await socket.read(until: "RELOADING=1"))
        #expect(reload.last?.contains("MONOTONIC_USEC=") == true)
        let afterReload = try #require(await socket.read(until: "READY=1"))
        #expect(afterReload.allSatisfy { $0 == "WATCHDOG=1" || $0.hasPrefix("READY=1") }, "\(afterReload)")

        kill(process.processIdentifier, SIGTERM)
        #expect(await socket.read(until: "STOPPING=1") != nil)
        #expect(await Self.exitStatus(of: process) == 0)
        // The process is gone, so whatever it sent is queued: nothing but the end of the shutdown.
        var late: [String] = []
        while let message = await socket.next(timeout: 0) { late.append(message) }
        #expect(late.isEmpty, "messages after STOPPING=1: \(late)")
    }

    /// Waits for `process` to end on a thread of its own and returns its exit status.
    static func exitStatus(of process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }.start()
        }
    }
}
