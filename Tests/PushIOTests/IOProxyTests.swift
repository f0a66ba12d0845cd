import Foundation
import PushIO
import Testing

@Suite("proxy URLs and the tunnel handshakes (no I/O)")
struct IOProxyTests {
    @Test("URLs: schemes, credentials (percent-decoded), default ports, IPv6")
    func parsing() throws {
        let http = try IOProxy(url: "http://us%40er:p%3Ass@proxy.example:3128")
        #expect(http == IOProxy(kind: .httpConnect, host: "proxy.example", port: 3128, username: "us@er", password: "p:ss"))
        #expect(try IOProxy(url: "http://proxy.example/") == IOProxy(kind: .httpConnect, host: "proxy.example", port: 80))
        #expect(try IOProxy(url: "socks5://u:p@[::1]:1081") == IOProxy(kind: .socks5, host: "::1", port: 1081, username: "u", password: "p"))
        #expect(try IOProxy(url: "socks5h://10.0.0.1").port == 1080)
        for bad in ["proxy:3128", "https://p:1", "ftp://p:1", "http://:1", "http://p:0", "http://p:99999", "http://p:1/x", "http://u:p@"] {
            #expect(throws: IOProxyURLError.self, "\(bad)") { try IOProxy(url: bad) }
        }
    }

    @Test("nodelay=1 says the proxy relays at once; the default is record groups; other queries are refused without repeating them")
    func relaysAtOnce() throws {
        #expect(try IOProxy(url: "socks5://127.0.0.1:1080").relaysAtOnce == false)
        for yes in ["socks5://127.0.0.1:1080?nodelay=1", "socks5://u:p@127.0.0.1?nodelay=true", "http://p:3128/?nodelay=TRUE"] {
            #expect(try IOProxy(url: yes).relaysAtOnce, "\(yes)")
        }
        for no in ["http://p:3128?nodelay=0", "http://p:3128?nodelay=false", "http://p:3128?nodelay=1&nodelay=0"] {
            #expect(try IOProxy(url: no).relaysAtOnce == false, "\(no)")
        }
        let parsed = try IOProxy(url: "socks5://alice:hunter2@[::1]:1081?nodelay=1")
        #expect(parsed == IOProxy(kind: .socks5, host: "::1", port: 1081, username: "alice", password: "hunter2", relaysAtOnce: true))
        // The description round-trips the setting (and still hides the credentials).
        #expect(parsed.description == "socks5://***@[::1]:1081?nodelay=1")
        #expect(try IOProxy(url: IOProxy(kind: .socks5, host: "h", port: 1, relaysAtOnce: true).description).relaysAtOnce)
        for bad in ["http://p:1?nodelay", "http://p:1?nodelay=yes", "http://p:1?", "http://p:1?fast=1", "http://p:1?nodelay=1&x"] {
            #expect(throws: IOProxyURLError.self, "\(bad)") { try IOProxy(url: bad) }
        }
        // An unencoded '?' in a password splits the URL there: the error must not show what follows it.
        do {
            _ = try IOProxy(url: "http://u:se?cret@p:1")
            Issue.record("accepted a query that is not nodelay")
        } catch {
            #expect(!"\(error)".contains("cret"), "\(error)")
        }
    }

    @Test("description never shows the credentials")
    func redaction() throws {
        let proxy = try IOProxy(url: "socks5://alice:hunter2@127.0.0.1:1080")
        #expect(proxy.description == "socks5://***@127.0.0.1:1080")
        #expect(!"\(proxy)".contains("hunter2") && !"\(proxy)".contains("alice"))
        #expect(try IOProxy(url: "http://[::1]:8080").description == "http://[::1]:8080")
    }

    @Test("HTTP CONNECT: the request names the target with Basic auth; 2xx opens, 407/403 refuse, 502 fails")
    func httpConnect() throws {
        let proxy = IOProxy(kind: .httpConnect, host: "127.0.0.1", port: 3128, username: "u", password: "p")
        var handshake = IOProxyHandshake(proxy: proxy, targetHost: "api.push.apple.com", targetPort: 443)
        let request = String(decoding: handshake.greeting(), as: UTF8.self)
        #expect(
            request == "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n"
                + "Proxy-Authorization: Basic dTpw\r\n\r\n")
        #expect(feed(&handshake, "HTTP/1.1 200 Connection established\r\n") == .needMore)
        #expect(feed(&handshake, "Proxy-Agent: x\r\n\r\n") == .established(extra: []))

        func answer(_ head: String, username: String? = "u") -> IOProxyHandshake.Step {
            var handshake = IOProxyHandshake(
                proxy: IOProxy(kind: .httpConnect, host: "p", port: 1, username: username, password: "secret"),
                targetHost: "h", targetPort: 443)
            return feed(&handshake, head)
        }
        guard case .failed(let denied) = answer("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n") else {
            Issue.record("407 must fail")
            return
        }
        #expect(denied.kind == .proxyRefused)
        #expect(denied.message.contains("wrong proxy user or password") && !denied.message.contains("secret"))
        guard case .failed(let missing) = answer("HTTP/1.0 407 Nope\r\n\r\n", username: nil) else {
            Issue.record("407")
            return
        }
        #expect(missing.message.contains("needs credentials"))
        guard case .failed(let unauthorized) = answer("HTTP/1.0 401 Unauthorized\r\n\r\n") else {
            Issue.record("401")
            return
        }
        #expect(unauthorized.kind == .proxyRefused)
        guard case .failed(let forbidden) = answer("HTTP/1.1 403 Forbidden\r\n\r\n") else {
            Issue.record("403")
            return
        }
        #expect(forbidden.kind == .proxyRefused)
        guard case .failed(let gateway) = answer("HTTP/1.1 502 Bad Gateway\r\n\r\n") else {
            Issue.record("502")
            return
        }
        #expect(gateway.kind == .proxy)
        guard case .failed(let nonsense) = answer("SSH-2.0-OpenSSH\r\n\r\n") else {
            Issue.record("nonsense")
            return
        }
        #expect(nonsense.kind == .proxy)
    }

    @Test("SOCKS5: greeting, RFC 1929 auth, CONNECT by domain name, reply codes")
    func socks5() {
        let proxy = IOProxy(kind: .socks5, host: "127.0.0.1", port: 1080, username: "ab", password: "xyz")
        var handshake = IOProxyHandshake(proxy: proxy, targetHost: "api.push.apple.com", targetPort: 443)
        #expect(handshake.greeting() == [5, 2, 0, 2])
        #expect(feed(&handshake, [5, 2]) == .send([1, 2, 97, 98, 3, 120, 121, 122]))
        let name = Array("api.push.apple.com".utf8)
        #expect(feed(&handshake, [1, 0]) == .send([5, 1, 0, 3, UInt8(name.count)] + name + [1, 187]))
        #expect(feed(&handshake, [5, 0, 0, 1, 127, 0]) == .needMore)
        #expect(feed(&handshake, [0, 1, 0x04, 0x38]) == .established(extra: []))

        var noAuth = IOProxyHandshake(proxy: IOProxy(kind: .socks5, host: "p", port: 1), targetHost: "127.0.0.1", targetPort: 2197)
        #expect(noAuth.greeting() == [5, 1, 0])
        #expect(feed(&noAuth, [5, 0]) == .send([5, 1, 0, 1, 127, 0, 0, 1, 0x08, 0x95]))

        func failure(_ replies: [[UInt8]]) -> IOError? {
            var handshake = IOProxyHandshake(proxy: proxy, targetHost: "h", targetPort: 443)
            for reply in replies {
                if case .failed(let error) = feed(&handshake, reply) { return error }
            }
            return nil
        }
        #expect(failure([[5, 2], [1, 1]])?.kind == .proxyRefused)
        #expect(failure([[5, 2], [1, 1]])?.message.contains("user name or password") == true)
        #expect(failure([[5, 0xFF]])?.kind == .proxyRefused)
        #expect(failure([[5, 0], [5, 2, 0, 1, 0, 0, 0, 0, 0, 0]])?.kind == .proxyRefused)
        #expect(failure([[5, 0], [5, 5, 0, 1, 0, 0, 0, 0, 0, 0]])?.message.contains("connection refused") == true)
        #expect(failure([[5, 0], [5, 5, 0, 1, 0, 0, 0, 0, 0, 0]])?.kind == .proxy)
        #expect(failure([[4, 0]])?.kind == .proxy)
    }

    private func feed(_ handshake: inout IOProxyHandshake, _ text: String) -> IOProxyHandshake.Step {
        feed(&handshake, Array(text.utf8))
    }

    private func feed(_ handshake: inout IOProxyHandshake, _ bytes: [UInt8]) -> IOProxyHandshake.Step {
        bytes.withUnsafeBytes { handshake.receive($0) }
    }
}
