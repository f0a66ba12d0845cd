import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushTLS
import TestSupport
import Testing

/// Against programs nobody on this team wrote: nghttpd (server) and h2load (client), from Debian's nghttp2.
@Suite("HTTP/2 interop with nghttpd and h2load", .serialized)
struct InteropTests {
    let loop = EventLoop(name: "interop-loop")

    @Test("our client fetches a file from nghttpd over TLS + ALPN h2")
    func clientAgainstNghttpd() async throws {
        let credentials = Credentials.shared
        let docs = TemporaryDirectory()
        let content = "served by nghttpd\n"
        try content.write(toFile: docs.path + "/hello.txt", atomically: true, encoding: .utf8)
        // nghttpd reports "listen" only with -v, and cannot report a port it chose, so it gets a free one.
        let port = try FreePort.pick()
        let nghttpd = try ChildProcess(
            "/usr/sbin/nghttpd",
            [
                "-v", "-a", "127.0.0.1", "-d", docs.path, "\(port)", credentials.serverKeyFile, credentials.serverCertFile,
            ])
        defer { nghttpd.terminate() }
        #expect(nghttpd.waitForLine(containing: "listen") != nil)

        var configuration = HTTP2ClientConnection.Configuration(
            host: "127.0.0.1", port: port,
            tls: try credentials.clientContext(), serverName: "localhost")
        configuration.connectTimeout = .seconds(5)
        let client = HTTP2ClientConnection(loop: loop, configuration: configuration)
        let get = HTTP2Request(method: "GET", authority: "localhost", path: "/hello.txt")
        let response = try await send(client, get).get()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == content)
        let missing = try await send(client, HTTP2Request(method: "GET", authority: "localhost", path: "/nope")).get()
        #expect(missing.status == 404)
        let alpn = try await onLoop(loop) { client.tlsInfo?.alpn }
        #expect(alpn == "h2")
    }

    @Test("h2load completes 10,000 POSTs with bodies against our server: 0 failed, 0 errored")
    func h2loadAgainstOurServer() async throws {
        let credentials = Credentials.shared
        let server = try HTTP2Server(loop: loop, tls: try credentials.serverContext()) { _ in EchoHandler() }
        defer { server.stop(graceful: false) }
        let work = TemporaryDirectory()
        let bodyFile = work.path + "/body.json"
        try #"{"aps":{"alert":"hello from h2load"}}"#.write(toFile: bodyFile, atomically: true, encoding: .utf8)
        let h2load = try ChildProcess(
            "/usr/bin/h2load",
            [
                "-n", "10000", "-c", "2", "-m", "100", "-d", bodyFile,
                "-H", "apns-topic: com.example.sniffmeet", "https://127.0.0.1:\(server.port)/3/device/abc",
            ])
        let (output, timedOut) = h2load.readToEnd(timeLimit: 60)
        #expect(!timedOut, "h2load did not finish within 60 s: \(output)")
        #expect(h2load.process.terminationStatus == 0, "\(output)")
        #expect(output.contains("10000 total, 10000 started, 10000 done, 10000 succeeded, 0 failed, 0 errored"), "\(output)")
        #expect(output.contains("Application protocol: h2\n"), "\(output)")
    }
}
