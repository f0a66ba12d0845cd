import Foundation
import PushChaos
import PushIO
import PushSync
import TestSupport
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

    @Test("a WATCHDOG=1 to a full queue is dropped, not waited for", .timeLimit(.minutes(1)))
    func pingNeverWaits() async throws {
        let socket = try NotifySocket(abstract: true)
        let notifier = SystemdNotifier(socketPath: socket.address)
        // Nobody reads until all are sent: the queue fills, and a blocking send would never return.
        let dropped = try await awaitEvent("200 pings sent to a socket nobody reads", within: .seconds(30)) {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: (0..<200).filter { _ in !notifier.watchdog() }.count) }.start()
            }
        }
        #expect(dropped > 0)
        #expect(await socket.next(timeout: 10) == "WATCHDOG=1")
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

    @Test("WATCHDOG=1 is withheld while any watched loop is blocked, resumes once it turns, and stops with the watchdog", .timeLimit(.minutes(2)))
    func watchdogProbesEveryLoop() async throws {
        let socket = try NotifySocket(abstract: true)
        let loops = [EventLoop(name: "watched-a"), EventLoop(name: "watched-b")]
        defer { for loop in loops { loop.shutdown() } }
        let watched = [SystemdWatchdog.WatchedLoop(name: "a", loop: loops[0]), SystemdWatchdog.WatchedLoop(name: "b", loop: loops[1])]
        let ticks = WatchdogTicks()
        let watchdog = SystemdWatchdog.start(
            interval: .milliseconds(50), notifier: SystemdNotifier(socketPath: socket.address), loops: { watched },
            report: { ticks.record($0) })
        for _ in 0..<3 { #expect(await socket.next(timeout: 10) == "WATCHDOG=1") }
        for loop in watched { try await Self.checkBlocking(loop, ticks: ticks, socket: socket) }
        await watchdog.stop()
        let stopped = ticks.all.count
        while await socket.next(timeout: 0) != nil {}
        // A loop blocked now changes nothing: the watchdog no longer probes or pings.
        let blocker = LoopBlocker(loops[0])
        try await blocker.waitUntilBlocked()
        #expect(ticks.all.count == stopped)
        #expect(await socket.next(timeout: 0) == nil)
        blocker.release()
    }

    @Test("push-server's watchdog probes every loop it runs: HTTP, webhooks, each APNs client", .timeLimit(.minutes(3)))
    func serviceLoopsWatched() async throws {
        let harness = try await ServiceHarness.start()
        let server = harness.server
        let loops = server.watchedLoops
        #expect(loops.map(\.name) == ["http", "webhooks", "apns default production", "apns default development"])
        #expect(Set(loops.map { ObjectIdentifier($0.loop) }).count == loops.count, "each a loop of its own")
        let socket = try NotifySocket(abstract: true)
        let ticks = WatchdogTicks()
        let watchdog = SystemdWatchdog.start(
            interval: .milliseconds(50), notifier: SystemdNotifier(socketPath: socket.address), loops: { server.watchedLoops },
            report: { ticks.record($0) })
        #expect(await socket.next(timeout: 10) == "WATCHDOG=1")
        do {
            for loop in loops { try await Self.checkBlocking(loop, ticks: ticks, socket: socket) }
        } catch {
            await watchdog.stop()
            await harness.stop()
            throw error
        }
        await watchdog.stop()
        await harness.stop()
    }

    /// Blocks `watched`'s loop and checks that the watchdog names it and sends no `WATCHDOG=1` for three
    /// intervals, then pings again once the loop is released.
    static func checkBlocking(_ watched: SystemdWatchdog.WatchedLoop, ticks: WatchdogTicks, socket: NotifySocket) async throws {
        let name = watched.name
        let blocker = LoopBlocker(watched.loop)
        do {
            try await blocker.waitUntilBlocked()
            let start = ticks.all.count
            try await ticks.wait("a withheld ping naming \(name)") { $0.dropFirst(start).contains { $0.withholds(name) } }
            // A ping sent before that is on the socket already (a datagram is queued as it is sent): drop it.
            while await socket.next(timeout: 0) != nil {}
            let from = ticks.all.count
            try await ticks.wait("three intervals with \(name) blocked") { $0.count >= from + 3 }
            let during = ticks.all[from..<(from + 3)]
            #expect(during.allSatisfy { $0.withholds(name) }, "\(during)")
            #expect(await socket.next(timeout: 0) == nil, "no WATCHDOG=1 while \(name) is blocked")
        } catch {
            blocker.release()
            throw error
        }
        blocker.release()
        #expect(await socket.read(until: "WATCHDOG=1") != nil, "WATCHDOG=1 again once \(name) turns")
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

extension SystemdWatchdog.Tick {
    /// True for an interval without a ping that names `loop` among the loops that did not answer.
    func withholds(_ loop: String) -> Bool {
        if case .withheld(let stuck) = self { return stuck.contains(loop) }
        return false
    }
}

/// The watchdog's reports, waited on without polling.
final class WatchdogTicks: Sendable {
    private struct State {
        var ticks: [SystemdWatchdog.Tick] = []
        var waiters: [(condition: @Sendable ([SystemdWatchdog.Tick]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = PThreadLock(State())

    /// Every report so far, oldest first.
    var all: [SystemdWatchdog.Tick] { state.withLock { $0.ticks } }

    func record(_ tick: SystemdWatchdog.Tick) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ticks.append(tick)
            let ticks = state.ticks
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(ticks) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `condition` holds for the reports so far; throws `DeadlineExceeded` naming `what` after 30 s.
    func wait(_ what: String, until condition: @escaping @Sendable ([SystemdWatchdog.Tick]) -> Bool) async throws {
        try await awaitEvent(what, within: .seconds(30)) { [state] in
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if condition(state.ticks) { return true }
                    state.waiters.append((condition, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}
