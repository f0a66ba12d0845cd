import Foundation
import TestSupport
import Testing

@Suite("send --direct --proxy through tinyproxy and danted", .serialized)
struct DirectProxyTests {
    static let token = String(repeating: "ab", count: 32)

    @Test("accepted through an authenticating HTTP CONNECT proxy and a SOCKS5 proxy, the URL with its password from PUSHCTL_PROXY")
    func throughProxies() async throws {
        let mock = try MockAPNSProcess()
        for proxy in [try await ProxyProcess.tinyproxy(credentials: ("ctl", "ctl-secret")), try await ProxyProcess.danted()] {
            let result = try PushCtlProcess.run(
                mock.directArguments + ["--token", Self.token, "--body", "Woof"], environment: ["PUSHCTL_PROXY": proxy.url])
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.hasPrefix("accepted apns-id "))
            #expect(proxy.output.contains("\(mock.port)"), "the proxy carried the connection")
            proxy.stop()
        }
        #expect(mock.stop() == 0)
    }

    @Test("a wrong proxy password exits 78 with a clear message that does not repeat it; a bad URL is a usage error")
    func refused() async throws {
        let mock = try MockAPNSProcess()
        let proxy = try await ProxyProcess.tinyproxy(credentials: ("ctl", "ctl-secret"))
        defer { proxy.stop() }
        let wrong = try #require(proxy.urlWithWrongPassword)
        let result = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", "x"], environment: ["PUSHCTL_PROXY": wrong])
        #expect(result.status == 78, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("proxy refused the tunnel"))
        #expect(result.stderr.contains("wrong proxy user or password"))
        #expect(!result.stderr.contains("not-ctl-secret") && !result.stdout.contains("not-ctl-secret"))
        let bad = try PushCtlProcess.run(mock.directArguments + ["--proxy", "ftp://x:1", "--token", Self.token, "--body", "x"])
        #expect(bad.status == 64)
        #expect(mock.stop() == 0)
    }

    @Test("a proxy URL with a password given to --proxy is refused before anything is sent, naming PUSHCTL_PROXY")
    func passwordInOptionRefused() throws {
        let result = try PushCtlProcess.run([
            "send", "--direct", "--cert", "client.p12", "--env", "development", "--token", Self.token, "--body", "x",
            "--proxy", "http://ctl:ctl-secret@127.0.0.1:3128",
        ])
        #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("--proxy is refused"))
        #expect(result.stderr.contains("PUSHCTL_PROXY"))
        #expect(!result.stderr.contains("ctl-secret"))
    }
}
