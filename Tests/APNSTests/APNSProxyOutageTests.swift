import APNS
import APNSCore
import APNSMock
import Foundation
import PushIO
import PushSync
import TestSupport
import Testing

/// Connection events with their times, and a wait for the n-th failed connection.
final class ConnectionTimeline: APNSClientMetrics {
    private struct State {
        var opened = 0
        var failures: [ContinuousClock.Instant] = []
        var errors: [String] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = PThreadLock(State())

    func record(_ event: APNSClientEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            switch event {
            case .connectionOpened: state.opened += 1
            case .connectionClosed(let error?):
                state.failures.append(.now)
                state.errors.append(error)
            default: return []
            }
            let count = state.failures.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` connections have failed or closed with an error; throws `DeadlineExceeded`
    /// after a minute without them.
    func waitForFailures(_ count: Int) async throws {
        try await awaitEvent("\(count) failed connections") { [state] in
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.failures.count >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    var opened: Int { state.withLock { $0.opened } }
    var failureTimes: [ContinuousClock.Instant] { state.withLock { $0.failures } }
    var errors: [String] { state.withLock { $0.errors } }
}

@Suite("APNs client when the egress proxy fails", .serialized)
struct APNSProxyOutageTests {
    @Test("the proxy dying mid-load: every send ends, reconnects back off, and work resumes when it is back")
    func proxyDiesMidLoad() async throws {
        let first = try await ProxyProcess.tinyproxy()
        let port = first.port
        let timeline = ConnectionTimeline()
        try await withClient(
            configureServer: { $0.latency = .fixed(.milliseconds(2)) },
            configureClient: { configuration in
                configuration.proxy = try? APNSProxy(url: first.url)
                configuration.metrics = timeline
                configuration.initialReconnectDelay = .milliseconds(100)
                configuration.maxReconnectDelay = .seconds(2)
                configuration.requestTimeout = .seconds(60)
            }
        ) { fixture in
            #expect(try await fixture.client.send(alert()).isAccepted)
            let load = Task { await sendAll(fixture.client, (0..<3000).map { alert(token($0)) }) }
            try await awaitEvent("300 notifications accepted by the mock") { [mock = fixture.server] in await mock.waitForAccepted(count: 300) }
            first.kill()
            // A send made after the kill keeps work waiting however far the load got by then (on a busy
            // machine the 3,000 can all have ended), so the client goes on trying to reconnect.
            let afterKill = Task { try await fixture.client.send(alert()) }
            // Several failed attempts while the proxy is down, then it comes back on the same port.
            try await timeline.waitForFailures(5)
            let second = try await ProxyProcess.tinyproxy(port: port)
            defer { second.stop() }
            let results = try await awaitEvent("the 3,000 sends to end") { await load.value }
            #expect(try await awaitEvent("the send made after the kill") { try await afterKill.value }.isAccepted)
            var accepted = 0
            for result in results {
                switch result {
                case .success(let outcome): if outcome.isAccepted { accepted += 1 }
                case .failure(let error): #expect(error.kind == .outcomeUnknown, "only sends on the wire may end unknown: \(error)")
                }
            }
            #expect(accepted > 0)
            #expect(results.count == 3000)
            #expect(timeline.opened >= 2, "reconnected through the restarted proxy")
            // Back-off: the gaps between failed attempts grow. With 50–100 % jitter on a doubling step a
            // gap can be as short as the one before at its longest, so compare gaps two steps apart
            // (at least twice as long), which also tolerates a timer firing late on a busy machine.
            let times = timeline.failureTimes
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(gaps.count >= 4)
            for index in 1..<max(1, gaps.count - 2) {
                #expect(gaps[index + 2] > gaps[index], "gaps \(gaps)")
            }
            #expect(timeline.errors.contains { $0.contains("cannot reach proxy") }, "\(timeline.errors)")
            #expect(try await fixture.client.send(alert(tokenB)).isAccepted)
        }
        first.stop()
    }

    @Test("connection set-up time includes the tunnel: a proxy that never answers hits the connect timeout")
    func silentProxyTimesOut() async throws {
        // A listening socket nobody accepts from: TCP completes in the kernel, the CONNECT gets no answer.
        let silent = try LoopbackSocket(listening: true)
        defer { silent.close() }
        let port = silent.port
        let timeline = ConnectionTimeline()
        try await withClient(configureClient: { configuration in
            configuration.proxy = APNSProxy(kind: .httpConnect, host: "127.0.0.1", port: port)
            configuration.connectTimeout = .milliseconds(200)
            configuration.requestTimeout = .seconds(30)
            configuration.initialReconnectDelay = .milliseconds(50)
            configuration.metrics = timeline
        }) { fixture in
            let send = Task { try await fixture.client.send(alert()) }
            try await timeline.waitForFailures(2)
            send.cancel()
            _ = try? await send.value
            #expect(timeline.errors.allSatisfy { $0.contains("timeout") }, "\(timeline.errors)")
            #expect(timeline.opened == 0)
        }
    }
}
