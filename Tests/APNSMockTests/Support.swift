import APNSCore
import APNSMock
import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushSync
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

/// One client loop for the whole test target.
let clientLoop = EventLoop(name: "apns-mock-tests-client")

/// The bundle id of every test certificate.
let bundleID = "com.example.app"
/// The topics of the default (universal, multi-topic) test certificate, as Apple issues them.
let universalTopics = [bundleID, bundleID + ".voip", bundleID + ".complication"]
/// A well-formed device token.
let tokenA = String(repeating: "ab", count: 32)
/// Another well-formed device token.
let tokenB = String(repeating: "cd", count: 32)
/// A small alert payload.
let alertPayload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

/// A mock server with its CA and a client credential. `shutdown()` closes every client connection it
/// made, waits until each has closed, then stops the server, so no loop is busy when the process exits.
final class MockFixture: Sendable {
    let authority: TestCertificateAuthority
    let server: MockAPNSServer
    let client: IssuedCredential
    private let clients = PThreadLock<[(connection: HTTP2ClientConnection, watcher: ConnectionWatcher)]>([])

    init(
        topics: [String] = universalTopics, environments: APNSCertificateEnvironments = .both,
        configure: (inout MockAPNSServer.Configuration) -> Void = { _ in }
    ) throws {
        authority = try TestCertificateAuthority()
        var (configuration, client) = try MockAPNSServer.makeForTesting(
            bundleID: bundleID, topics: topics, environments: environments, authority: authority)
        configure(&configuration)
        self.client = client
        server = try MockAPNSServer(configuration: configuration)
    }

    /// A client connection (the first send connects) presenting `identity`, watched for GOAWAY and close.
    func connection(identity: IssuedCredential? = nil) throws -> HTTP2ClientConnection {
        var tls = TLSClientConfiguration(trust: server.credentials.trust)
        tls.identity = try (identity ?? client).identity()
        let configuration = HTTP2ClientConnection.Configuration(
            host: "127.0.0.1", port: server.port, tls: try TLSContext.client(tls), serverName: "127.0.0.1")
        let connection = HTTP2ClientConnection(loop: clientLoop, configuration: configuration)
        let watcher = ConnectionWatcher()
        clientLoop.execute { connection.delegate = watcher }
        clients.withLock { $0.append((connection, watcher)) }
        return connection
    }

    /// The watcher of a connection made by `connection(identity:)`.
    func watcher(for connection: HTTP2ClientConnection) -> ConnectionWatcher {
        clients.withLock { all in all.first { $0.connection === connection }!.watcher }
    }

    /// Closes the client connections, waits for them, stops the server.
    func shutdown() async {
        for (connection, watcher) in clients.withLock({ $0 }) {
            clientLoop.execute { connection.close() }
            do { try await watcher.closed() } catch { Issue.record("\(error)") }
        }
        server.stop()
    }
}

/// Runs `body` with a fresh fixture and shuts it down afterwards, also when `body` throws.
func withFixture<T: Sendable>(
    topics: [String] = universalTopics, environments: APNSCertificateEnvironments = .both,
    configure: (inout MockAPNSServer.Configuration) -> Void = { _ in },
    _ body: (MockFixture) async throws -> T
) async throws -> T {
    let fixture = try MockFixture(topics: topics, environments: environments, configure: configure)
    do {
        let result = try await body(fixture)
        await fixture.shutdown()
        return result
    } catch {
        await fixture.shutdown()
        throw error
    }
}

/// A valid APNs request: alert to `token` on the bare bundle id.
func apnsRequest(
    token: String = tokenA, topic: String? = bundleID, pushType: String? = "alert",
    extraHeaders: [(name: String, value: String)] = [], body: [UInt8] = alertPayload
) -> HTTP2Request {
    var headers: [(name: String, value: String)] = []
    if let topic { headers.append((APNSHeader.topic, topic)) }
    if let pushType { headers.append((APNSHeader.pushType, pushType)) }
    headers += extraHeaders
    return HTTP2Request(authority: "127.0.0.1", path: APNSHeader.devicePathPrefix + token, headers: headers, body: body)
}

/// Sends one request and waits for its end.
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

/// Sends one request and returns its response, throwing on a transport failure.
func respond(_ connection: HTTP2ClientConnection, _ request: HTTP2Request) async throws -> HTTPResponse {
    try await send(connection, request).get()
}

/// Queues every request in one loop turn (so they leave together) and waits for all, in order.
func sendBatch(_ connection: HTTP2ClientConnection, _ requests: [HTTP2Request]) async -> [HTTP2Result] {
    let results = PThreadLock<[Int: HTTP2Result]>([:])
    do {
        try await awaitEvent("the answers to \(requests.count) requests") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                connection.loop.execute {
                    for (index, request) in requests.enumerated() {
                        connection.send(request) { result in
                            let done = results.withLock {
                                $0[index] = result
                                return $0.count == requests.count
                            }
                            if done { continuation.resume() }
                        }
                    }
                }
            }
        }
    } catch {
        Issue.record("\(error)")
    }
    return results.withLock { all in (0..<requests.count).map { all[$0] ?? .failure(.outcomeUnknown("no answer in time")) } }
}

/// Reads a value on the connection's loop thread.
func onLoop<T: Sendable>(_ connection: HTTP2ClientConnection, _ body: @escaping @Sendable () -> T) async throws -> T {
    try await connection.loop.submit(body)
}

/// The body as text.
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// Watches a client connection's GOAWAYs and close; waits on them without polling.
final class ConnectionWatcher: HTTP2ClientConnectionDelegate, Sendable {
    /// One GOAWAY as received.
    struct GoAway: Sendable {
        let lastStreamID: Int32
        let errorCode: UInt32
        let debugData: String
    }

    private struct State {
        var goAways: [GoAway] = []
        var goAwayWaiters: [CheckedContinuation<GoAway, Never>] = []
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = PThreadLock(State())

    /// The first GOAWAY, waiting for it if needed (a minute at most, then `DeadlineExceeded`).
    func firstGoAway() async throws -> GoAway {
        try await awaitEvent("a GOAWAY from the server") { [state] in
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> GoAway? in
                    if let first = state.goAways.first { return first }
                    state.goAwayWaiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// Returns once the connection closed (`timeout` at most, then `DeadlineExceeded`).
    func closed(within timeout: Duration = .seconds(60)) async throws {
        try await awaitEvent("the connection to close", within: timeout) { [state] in
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.closed { return true }
                    state.closeWaiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    func connectionDidBecomeReady(_ connection: HTTP2ClientConnection) {}

    func connection(_ connection: HTTP2ClientConnection, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        let goAway = GoAway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: text(debugData))
        let waiters = state.withLock { state in
            state.goAways.append(goAway)
            defer { state.goAwayWaiters.removeAll() }
            return state.goAwayWaiters
        }
        for waiter in waiters { waiter.resume(returning: goAway) }
    }

    func connectionHasCapacity(_ connection: HTTP2ClientConnection) {}

    func connection(_ connection: HTTP2ClientConnection, didCloseWith error: IOError?) {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
