import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

@Suite("Tunnels through a real SOCKS5 proxy (danted): record groups unless the proxy relays at once", .serialized)
struct TunnelWritePathTests {
    let loop = EventLoop(name: "tunnel-path-loop")

    @Test(
        "through danted with and without nodelay=1: 300 requests of 3 KB each answered once with their own body; record groups only without it",
        arguments: [false, true])
    func writePathFollowsTheProxy(relaysAtOnce: Bool) async throws {
        let proxy = try await ProxyProcess.danted(authenticated: false)
        defer { proxy.stop() }
        let server = try HTTP2Server(loop: loop, tls: try Credentials.shared.serverContext()) { _ in EchoHandler() }
        defer { server.stop(graceful: false) }
        var configuration = HTTP2ClientConnection.Configuration(
            host: "127.0.0.1", port: server.port, tls: try Credentials.shared.clientContext())
        configuration.proxy = try IOProxy(url: proxy.url + (relaysAtOnce ? "?nodelay=1" : ""))
        #expect(configuration.proxy?.relaysAtOnce == relaysAtOnce)
        let connection = HTTP2ClientConnection(loop: loop, configuration: configuration)
        // Bodies larger than a record group, and more of them than the connection's window holds at once.
        let bodies = (0..<300).map { index in [UInt8](repeating: UInt8(index & 0x7F), count: 3_000 + index) }
        let results = await sendAll(
            connection, bodies.indices.map { HTTP2Request(authority: "localhost", path: "/\($0)", body: bodies[$0]) })
        for (index, result) in results.enumerated() {
            let response = try result.get()
            #expect(response.status == 200)
            #expect(response.body == bodies[index], "request \(index)")
            #expect(response.headers.first { $0.name == "x-path" }?.value == "/\(index)")
        }
        let grouped = try await onLoop(loop) { connection.writesRequestGroups }
        #expect(grouped == !relaysAtOnce)
        // The tunnel went through danted: it logged the connection to the server's port.
        #expect(proxy.output.contains("\(server.port)"), "\(proxy.output.suffix(800))")
    }

    @Test("a direct connection writes no record groups")
    func directConnectionIsNotGrouped() async throws {
        let server = try HTTP2Server(loop: loop, tls: try Credentials.shared.serverContext()) { _ in EchoHandler() }
        defer { server.stop(graceful: false) }
        let connection = HTTP2ClientConnection(
            loop: loop,
            configuration: .init(host: "127.0.0.1", port: server.port, tls: try Credentials.shared.clientContext()))
        let response = try await send(connection, HTTP2Request(authority: "localhost", path: "/direct", body: [1, 2, 3])).get()
        #expect(response.body == [1, 2, 3])
        #expect(try await onLoop(loop) { connection.writesRequestGroups } == false)
    }
}
