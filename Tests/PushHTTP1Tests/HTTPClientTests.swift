import Foundation
import PushHTTP
import PushHTTP1
import PushIO
import PushTLS
import PushTLSTesting
import Testing

/// `HTTPClient` (evhttp's client) against the package's own HTTP/1.1 server, plain and over TLS.
@Suite("HTTPClient")
struct HTTPClientTests {
    /// A server on its own loop that answers every request with `answer`, or never when it returns nil.
    static func server(
        tls: HTTPServerTLS? = nil, _ answer: @escaping @Sendable (HTTPServerRequest) -> HTTPResponse?
    ) throws -> (HTTPServer, EventLoop) {
        let loop = EventLoop(name: "http-client-test-server")
        let server = try HTTPServer(loop: loop, port: 0, tls: tls) { request, responder in
            if let response = answer(request) { responder.respond(response) }
        }
        return (server, loop)
    }

    /// Echoes the method, path, Host header, a custom header and the body length.
    static let echo: @Sendable (HTTPServerRequest) -> HTTPResponse? = { request in
        let header = { (name: String) in request.headers.first { $0.name.lowercased() == name }?.value ?? "-" }
        let text = "\(request.method) \(request.path) \(header("host")) \(header("x-test")) \(request.body.count)"
        return HTTPResponse(status: 201, headers: [("X-Echo", "1")], body: Array(text.utf8))
    }

    @Test func postsOverPlainHTTP() async throws {
        let (server, serverLoop) = try Self.server(Self.echo)
        defer {
            server.close()
            serverLoop.shutdown()
        }
        let loop = EventLoop(name: "http-client-test")
        defer { loop.shutdown() }
        let client = HTTPClient(loop: loop, tls: nil)
        let response = try await client.post(
            url: "http://127.0.0.1:\(server.port)/hooks/in?x=1", headers: [("X-Test", "yes")], body: Array(repeating: 7, count: 1_000),
            timeout: .seconds(5))
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == "POST /hooks/in 127.0.0.1:\(server.port) yes 1000")
        // The answer's header fields come back too, found whatever the case of the name asked for.
        #expect(response.header("x-echo") == "1")
        #expect(response.header("Content-Length") == "\(response.body.count)")
    }

    @Test func postsOverTLSAndRefusesAnUntrustedServer() async throws {
        let authority = try TestCertificateAuthority()
        let identity = try authority.issueServerCertificate().identity()
        let context = try TLSContext.server(TLSServerConfiguration(identity: identity, alpn: ["http/1.1"]))
        let (server, serverLoop) = try Self.server(tls: HTTPServerTLS(context: context), Self.echo)
        defer {
            server.close()
            serverLoop.shutdown()
        }
        let loop = EventLoop(name: "http-client-test")
        defer { loop.shutdown() }
        let trusting = HTTPClient(
            loop: loop, tls: try TLSContext.client(TLSClientConfiguration(trust: .caPEM(authority.certificatePEM), alpn: ["http/1.1"])))
        let response = try await trusting.post(url: "https://127.0.0.1:\(server.port)/", headers: [], body: [1, 2, 3], timeout: .seconds(5))
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self).hasSuffix(" 3"))
        let other = try TestCertificateAuthority(commonName: "Another CA")
        let refusing = HTTPClient(
            loop: loop, tls: try TLSContext.client(TLSClientConfiguration(trust: .caPEM(other.certificatePEM), alpn: ["http/1.1"])))
        await #expect(throws: IOError.self) {
            _ = try await refusing.post(url: "https://127.0.0.1:\(server.port)/", headers: [], body: [], timeout: .seconds(5))
        }
    }

    @Test func aSilentServerTimesOutAndAClosedPortIsRefused() async throws {
        let (server, serverLoop) = try Self.server { _ in nil }
        defer {
            server.close()
            serverLoop.shutdown()
        }
        let loop = EventLoop(name: "http-client-test")
        defer { loop.shutdown() }
        let client = HTTPClient(loop: loop, tls: nil)
        await #expect {
            _ = try await client.post(url: "http://127.0.0.1:\(server.port)/", headers: [], body: [], timeout: .milliseconds(300))
        } throws: { ($0 as? IOError)?.kind == .timeout }
        let (closed, closedLoop) = try Self.server(Self.echo)
        let port = closed.port
        closed.close()
        closedLoop.shutdown()
        await #expect {
            _ = try await client.post(url: "http://127.0.0.1:\(port)/", headers: [], body: [], timeout: .seconds(5))
        } throws: { ($0 as? IOError)?.kind != .timeout }
        await #expect(throws: IOError.self) { _ = try await client.post(url: "ftp://x/", headers: [], body: [], timeout: .seconds(1)) }
    }
}
