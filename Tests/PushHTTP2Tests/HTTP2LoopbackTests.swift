import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushSync
import PushTLS
import PushTLSTesting
import Testing

/// Our client against our server, over TLS with ALPN h2.
@Suite("HTTP/2 client and server over TLS")
struct HTTP2LoopbackTests {
    let loop = EventLoop(name: "test-loop")

    func makeServer(
        requireClientCertificate: Bool = false, deferred: Bool = false,
        settings: HTTP2ServerSettings = HTTP2ServerSettings()
    ) throws -> HTTP2Server {
        let tls = try Credentials.shared.serverContext(requireClientCertificate: requireClientCertificate)
        return try HTTP2Server(loop: loop, tls: tls, settings: settings) { _ in EchoHandler(deferred: deferred) }
    }

    /// A server on the test loop whose every connection is served by `handler`.
    func makeServer(handler: any HTTP2ServerHandler) throws -> HTTP2Server {
        try HTTP2Server(loop: loop, tls: try Credentials.shared.serverContext()) { _ in handler }
    }

    func makeClient(port: Int, tls: TLSContext, serverName: String? = nil, delegate: ConnectionEvents? = nil) -> HTTP2ClientConnection {
        var configuration = HTTP2ClientConnection.Configuration(host: "127.0.0.1", port: port, tls: tls, serverName: serverName)
        configuration.connectTimeout = .seconds(5)
        let connection = HTTP2ClientConnection(loop: loop, configuration: configuration)
        // The delegate is the connection's loop state: set there.
        try? loop.submitSync { connection.delegate = delegate }
        return connection
    }

    func request(_ path: String = "/echo", body: [UInt8] = Array("hello".utf8)) -> HTTP2Request {
        HTTP2Request(authority: "localhost", path: path, headers: [("content-type", "application/json")], body: body)
    }

    @Test("mutual TLS: the server sees the client certificate and echoes the body")
    func mutualTLS() async throws {
        let server = try makeServer(requireClientCertificate: true)
        defer { server.stop(graceful: false) }
        let client = makeClient(port: server.port, tls: try Credentials.shared.clientContext(withIdentity: true))
        let result = await send(client, request(body: Array("ping".utf8)))
        let response = try result.get()
        #expect(response.status == 200)
        #expect(response.body == Array("ping".utf8))
        #expect(response.header("x-client-uid") == "com.example.sniffmeet")
        #expect(response.header("x-path") == "/echo")
        let alpn = try await onLoop(loop) { client.tlsInfo?.alpn }
        #expect(alpn == "h2")
    }

    @Test("a server that requires client certificates refuses a client without one")
    func refusesClientWithoutCertificate() async throws {
        let server = try makeServer(requireClientCertificate: true)
        defer { server.stop(graceful: false) }
        let events = ConnectionEvents()
        let client = makeClient(
            port: server.port, tls: try Credentials.shared.clientContext(withIdentity: false),
            delegate: events)
        let result = await send(client, request())
        guard case .failure = result else {
            Issue.record("request without a client certificate succeeded")
            return
        }
        // Refused by the TLS handshake for want of a certificate, not by any other failure.
        let errors = try await onLoop(loop) { events.closeErrors }
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("tls: ") == true, "\(errors)")
        #expect(errors.first?.contains("certificate required") == true, "\(errors)")
    }

    @Test("the client refuses a server certificate from an untrusted CA")
    func refusesUntrustedServer() async throws {
        let server = try makeServer()
        defer { server.stop(graceful: false) }
        let other = try TestCertificateAuthority(commonName: "Somebody Else's CA")
        let events = ConnectionEvents()
        let client = makeClient(
            port: server.port, tls: try Credentials.shared.clientContext(trust: .caPEM(other.certificatePEM)),
            delegate: events)
        let result = await send(client, request())
        #expect(throws: HTTP2ClientFailure.self) { try result.get() }
        let errors = try await onLoop(loop) { events.closeErrors }
        #expect(errors.first?.hasPrefix("tls: ") == true && errors.first?.contains("certificate verify failed") == true, "\(errors)")
    }

    @Test("the client refuses a certificate issued for another host")
    func refusesWrongHost() async throws {
        let server = try makeServer()
        defer { server.stop(graceful: false) }
        let events = ConnectionEvents()
        let client = makeClient(
            port: server.port, tls: try Credentials.shared.clientContext(), serverName: "api.push.apple.com",
            delegate: events)
        let result = await send(client, request())
        #expect(throws: HTTP2ClientFailure.self) { try result.get() }
        let errors = try await onLoop(loop) { events.closeErrors }
        #expect(errors.first?.hasPrefix("tls: ") == true && errors.first?.contains("certificate verify failed") == true, "\(errors)")
    }

    @Test("never more streams open than the server allows; every request answered")
    func honoursMaxConcurrentStreams() async throws {
        var settings = HTTP2ServerSettings()
        settings.maxConcurrentStreams = 10
        let server = try makeServer(deferred: true, settings: settings)
        defer { server.stop(graceful: false) }
        let client = makeClient(port: server.port, tls: try Credentials.shared.clientContext())
        let results = await sendAll(client, (0..<1000).map { request("/n/\($0)") })
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        let observed = try await onLoop(loop) { server.openConnections.map(\.maxObservedOpenStreams).max() ?? 0 }
        #expect(observed <= 10)
        #expect(observed >= 2)
    }

    @Test("a request's arrival time is that of the read that brought it: after it was sent, before it is handled")
    func arrivalTime() async throws {
        let arrivals = ArrivalRecorder()
        let server = try makeServer(handler: arrivals)
        defer { server.stop(graceful: false) }
        let client = makeClient(port: server.port, tls: try Credentials.shared.clientContext())
        #expect(try await send(client, request()).get().status == 200)
        // The second request comes in a later read: its arrival is not the first read's.
        let sent = ContinuousClock.now
        #expect(try await send(client, request()).get().status == 200)
        let seen = arrivals.seen.withLock { $0 }
        try #require(seen.count == 2)
        #expect(seen[1].arrival >= sent)
        #expect(seen[1].arrival <= seen[1].handled)
        #expect(seen[0].arrival < seen[1].arrival)
    }

    @Test("a 256 KB body crosses the 64 KB flow-control window")
    func flowControl() async throws {
        let server = try makeServer()
        defer { server.stop(graceful: false) }
        let client = makeClient(port: server.port, tls: try Credentials.shared.clientContext())
        let body = (0..<(256 * 1024)).map { UInt8($0 % 251) }
        let response = try await send(client, request(body: body)).get()
        #expect(response.body == body)
    }

    @Test("GOAWAY reaches the client with its debug data; later requests are not processed")
    func goAway() async throws {
        let server = try makeServer()
        defer { server.stop(graceful: false) }
        let events = ConnectionEvents()
        let client = makeClient(port: server.port, tls: try Credentials.shared.clientContext(), delegate: events)
        _ = try await send(client, request()).get()
        let debug = Array(#"{"reason":"Shutdown"}"#.utf8)
        try await onLoop(loop) { for connection in server.openConnections { connection.goAway(debugData: debug) } }
        // The GOAWAY names the last stream the server had received when it was submitted, so a request sent
        // now is above it: refused locally (GOAWAY already read) or closed as refused when the GOAWAY arrives.
        // Either way it ends not processed, and only after the client has read the GOAWAY.
        let late = await send(client, request())
        guard case .failure(.notProcessed) = late else {
            Issue.record("a request sent after GOAWAY ended \(late), not as not processed")
            return
        }
        let goAways = try await onLoop(loop) { events.goAways }
        #expect(goAways.count == 1)
        #expect(goAways.first?.debugData == debug)
        #expect(goAways.first?.errorCode == 0)
        #expect(goAways.first?.lastStreamID == 1)
    }

    @Test("requests that arrive with or after the server's GOAWAY, above its last stream id, are never handed over")
    func goAwayFencesLaterStreams() async throws {
        let handler = GoAwayOnFirstRequest()
        let server = try makeServer(handler: handler)
        defer { server.stop(graceful: false) }
        let client = makeClient(port: server.port, tls: try Credentials.shared.clientContext())
        _ = try await send(client, request()).get()  // the connection is up; the next requests go out together
        handler.armed.withLock { $0 = true }
        let results = await sendAll(client, (0..<20).map { _ in request() })
        let (delivered, last) = try await onLoop(loop) { (handler.delivered, handler.lastStreamID) }
        let goAwayLast = try #require(last)
        // Only streams up to the GOAWAY's last stream id reached the handler, and exactly those were answered.
        #expect(delivered.allSatisfy { $0 <= goAwayLast }, "\(delivered) above \(goAwayLast)")
        let answered = results.filter { if case .success = $0 { true } else { false } }.count
        #expect(answered == delivered.count)
        #expect(results.allSatisfy { if case .failure(.notProcessed) = $0 { true } else if case .success = $0 { true } else { false } })
    }
}
