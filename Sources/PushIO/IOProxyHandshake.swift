import Foundation

/// The client side of a proxy's tunnel set-up, without I/O: bytes from the proxy go in, the bytes to
/// send and the verdict come out. HTTP CONNECT reads the status line and headers up to the blank line;
/// SOCKS5 runs the greeting, RFC 1929 authentication and a CONNECT by domain name.
public struct IOProxyHandshake: Sendable {
    /// What to do after some bytes arrived.
    public enum Step: Sendable, Equatable {
        /// Wait for more bytes.
        case needMore
        /// Send these bytes, then wait for more.
        case send([UInt8])
        /// The tunnel is up; `extra` bytes arrived after the proxy's answer (they belong to the target).
        case established(extra: [UInt8])
        /// The proxy refused or answered nonsense.
        case failed(IOError)
    }

    private enum State: Sendable {
        case httpResponse
        case socksMethod, socksAuth, socksConnect
        case done
    }

    /// The proxy being talked to.
    public let proxy: IOProxy
    /// The host the tunnel should reach.
    public let targetHost: String
    /// The port the tunnel should reach.
    public let targetPort: Int
    private var state: State
    private var buffer: [UInt8] = []
    /// The most an HTTP proxy's answer head may take.
    private static let maxHTTPHead = 16 * 1024

    /// A handshake through `proxy` to `targetHost:targetPort`.
    public init(proxy: IOProxy, targetHost: String, targetPort: Int) {
        self.proxy = proxy
        self.targetHost = targetHost
        self.targetPort = targetPort
        state = proxy.kind == .httpConnect ? .httpResponse : .socksMethod
    }

    private var target: String { "\(targetHost.contains(":") ? "[\(targetHost)]" : targetHost):\(targetPort)" }

    /// The first bytes to send once TCP to the proxy is up.
    public func greeting() -> [UInt8] {
        switch proxy.kind {
        case .httpConnect:
            var request = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
            if let user = proxy.username {
                let basic = Data("\(user):\(proxy.password ?? "")".utf8).base64EncodedString()
                request += "Proxy-Authorization: Basic \(basic)\r\n"
            }
            return Array((request + "\r\n").utf8)
        case .socks5:
            // No authentication, and username/password when we have credentials.
            return proxy.username == nil ? [5, 1, 0] : [5, 2, 0, 2]
        }
    }

    /// Takes bytes from the proxy and says what comes next.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Step {
        buffer.append(contentsOf: bytes)
        switch state {
        case .httpResponse: return httpResponse()
        case .socksMethod: return socksMethod()
        case .socksAuth: return socksAuth()
        case .socksConnect: return socksConnect()
        case .done: return .failed(IOError(.proxy, "proxy sent data after the handshake"))
        }
    }

    private mutating func finish(_ error: IOError) -> Step {
        state = .done
        return .failed(error)
    }

    private mutating func established(consumed: Int) -> Step {
        state = .done
        let extra = Array(buffer[consumed...])
        buffer = []
        return .established(extra: extra)
    }

    // MARK: HTTP CONNECT

    private mutating func httpResponse() -> Step {
        let end: [UInt8] = [13, 10, 13, 10]
        guard let range = buffer.firstRange(of: end) else {
            if buffer.count > Self.maxHTTPHead { return finish(IOError(.proxy, "proxy answer head is too long")) }
            return .needMore
        }
        let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            return finish(IOError(.proxy, "proxy \(proxy) does not speak HTTP CONNECT (answered '\(statusLine.prefix(60))')"))
        }
        let reason = parts.count > 2 ? " \(parts[2])" : ""
        switch status {
        case 200..<300:
            return established(consumed: range.upperBound)
        case 407, 401:
            // 407 is the standard answer; tinyproxy, for one, answers a CONNECT with bad credentials 401.
            let why = proxy.username == nil ? "it needs credentials (none configured)" : "wrong proxy user or password"
            return finish(IOError(.proxyRefused, "proxy \(proxy) refused the tunnel to \(target): \(status)\(reason): \(why)"))
        case 403:
            return finish(IOError(.proxyRefused, "proxy \(proxy) forbids the tunnel to \(target): \(status)\(reason)"))
        default:
            return finish(IOError(.proxy, "proxy \(proxy) could not open a tunnel to \(target): \(status)\(reason)"))
        }
    }

    // MARK: SOCKS5

    private mutating func socksMethod() -> Step {
        guard buffer.count >= 2 else { return .needMore }
        guard buffer[0] == 5 else { return finish(IOError(.proxy, "proxy \(proxy) does not speak SOCKS5")) }
        let method = buffer[1]
        buffer.removeFirst(2)
        switch method {
        case 0:
            return sendConnect()
        case 2 where proxy.username != nil:
            state = .socksAuth
            let user = Array((proxy.username ?? "").utf8.prefix(255))
            let password = Array((proxy.password ?? "").utf8.prefix(255))
            return .send([1, UInt8(user.count)] + user + [UInt8(password.count)] + password)
        case 0xFF:
            let why = proxy.username == nil ? "it needs credentials (none configured)" : "it accepts no method we offer"
            return finish(IOError(.proxyRefused, "SOCKS5 proxy \(proxy) refused us: \(why)"))
        default:
            return finish(IOError(.proxy, "SOCKS5 proxy \(proxy) chose method \(method), which we did not offer"))
        }
    }

    private mutating func socksAuth() -> Step {
        guard buffer.count >= 2 else { return .needMore }
        guard buffer[1] == 0 else {
            return finish(IOError(.proxyRefused, "SOCKS5 proxy \(proxy) rejected the user name or password"))
        }
        buffer.removeFirst(2)
        return sendConnect()
    }

    private mutating func sendConnect() -> Step {
        var request: [UInt8] = [5, 1, 0]
        if let v4 = Self.ipv4(targetHost) {
            request += [1] + v4
        } else if let v6 = Self.ipv6(targetHost) {
            request += [4] + v6
        } else {
            let name = Array(targetHost.utf8)
            guard name.count <= 255 else { return finish(IOError(.proxy, "host name too long for SOCKS5")) }
            request += [3, UInt8(name.count)] + name
        }
        request += [UInt8(targetPort >> 8 & 0xFF), UInt8(targetPort & 0xFF)]
        state = .socksConnect
        return .send(request)
    }

    private mutating func socksConnect() -> Step {
        guard buffer.count >= 5 else { return .needMore }
        let addressLength: Int
        switch buffer[3] {
        case 1: addressLength = 4
        case 4: addressLength = 16
        case 3: addressLength = 1 + Int(buffer[4])
        default: return finish(IOError(.proxy, "SOCKS5 proxy \(proxy) answered an unknown address type"))
        }
        guard buffer[0] == 5 else { return finish(IOError(.proxy, "proxy \(proxy) does not speak SOCKS5")) }
        let reply = buffer[1]
        if reply != 0 {
            let text = Self.socksReplies[Int(reply)] ?? "error \(reply)"
            let kind: IOError.Kind = [2, 7, 8].contains(reply) ? .proxyRefused : .proxy
            return finish(IOError(kind, "SOCKS5 proxy \(proxy) could not connect to \(target): \(text)"))
        }
        let total = 4 + addressLength + 2
        guard buffer.count >= total else { return .needMore }
        return established(consumed: total)
    }

    private static let socksReplies: [Int: String] = [
        1: "general failure", 2: "connection not allowed by ruleset", 3: "network unreachable",
        4: "host unreachable", 5: "connection refused", 6: "TTL expired", 7: "command not supported",
        8: "address type not supported",
    ]

    private static func ipv4(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    private static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }
}
