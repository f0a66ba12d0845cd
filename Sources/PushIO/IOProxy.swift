import Foundation

/// A proxy that outgoing connections tunnel through: HTTP CONNECT or SOCKS5, with optional credentials.
///
/// The tunnel reaches the target by name (the proxy resolves it), and anything layered on top (TLS with
/// its SNI, certificate check and ALPN) is for the target, never for the proxy. ``description`` never
/// shows the credentials, so a proxy can be logged as it is.
public struct IOProxy: Sendable, Equatable, CustomStringConvertible {
    /// The tunnel protocol.
    public enum Kind: String, Sendable {
        /// HTTP/1.1 `CONNECT host:port`, with `Proxy-Authorization: Basic` when credentials are set.
        case httpConnect = "http"
        /// SOCKS5 (RFC 1928) `CONNECT` by domain name, with username/password auth (RFC 1929) when set.
        case socks5
    }

    /// HTTP CONNECT or SOCKS5.
    public var kind: Kind
    /// The proxy's host name or IP literal (IPv6 without brackets).
    public var host: String
    /// The proxy's TCP port.
    public var port: Int
    /// The user name to authenticate with; nil for none.
    public var username: String?
    /// The password to authenticate with. Never logged.
    public var password: String?
    /// The proxy passes on what it reads at once, however it splits the stream (TCP_NODELAY on its sockets,
    /// as Dante's `danted` sets): then requests go out in records as large as on a direct connection.
    /// Left false (the default), requests go out in TLS records of whole requests of about 1.5 KB each, so
    /// that a relay holding back pieces of a write (Nagle's algorithm, as tinyproxy's sockets have) never
    /// waits for a delayed acknowledgement (`IOStream+Tunnel.swift`): safe through any proxy, and slower
    /// through one that does not hold back. URL query `nodelay=1`.
    public var relaysAtOnce: Bool

    /// A proxy of `kind` at `host:port`, with credentials when `username` is set.
    public init(
        kind: Kind, host: String, port: Int, username: String? = nil, password: String? = nil, relaysAtOnce: Bool = false
    ) {
        self.kind = kind
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.relaysAtOnce = relaysAtOnce
    }

    /// Parses `http://[user:password@]host[:port][?nodelay=1]` (port 80 by default) or `socks5://…` (also
    /// `socks5h://`; port 1080 by default). User and password may be percent-encoded; `nodelay` (`1`,
    /// `true`, `0` or `false`) sets ``relaysAtOnce``, and no other query parameter is known.
    public init(url: String) throws(IOProxyURLError) {
        var text = Substring(url.trimmingCharacters(in: .whitespaces))
        relaysAtOnce = false
        if let question = text.firstIndex(of: "?") {
            relaysAtOnce = try Self.relaysAtOnce(query: text[text.index(after: question)...])
            text = text[..<question]
        }
        guard let schemeEnd = text.range(of: "://") else { throw IOProxyURLError("no scheme (use http:// or socks5://)") }
        switch text[..<schemeEnd.lowerBound].lowercased() {
        case "http": kind = .httpConnect
        case "socks5", "socks5h": kind = .socks5
        case let other: throw IOProxyURLError("unsupported scheme '\(other)' (use http:// or socks5://)")
        }
        var rest = text[schemeEnd.upperBound...]
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else { throw IOProxyURLError("a proxy URL has no path") }
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = parts[0].removingPercentEncoding, !user.isEmpty else {
                throw IOProxyURLError("bad user name")
            }
            username = user
            if parts.count == 2 {
                guard let secret = parts[1].removingPercentEncoding else { throw IOProxyURLError("bad password encoding") }
                password = secret
            } else {
                password = ""
            }
        }
        var hostPart = Substring(rest)
        var portPart: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw IOProxyURLError("unclosed [ in host") }
            let after = hostPart[hostPart.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw IOProxyURLError("bad host") }
                portPart = after.dropFirst()
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portPart = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw IOProxyURLError("no host") }
        host = String(hostPart)
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else { throw IOProxyURLError("bad port") }
            port = value
        } else {
            port = kind == .httpConnect ? 80 : 1080
        }
    }

    /// The URL with the credentials replaced by `***`; safe to log.
    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let auth = username == nil ? "" : "***@"
        return "\(kind.rawValue)://\(auth)\(hostText):\(port)\(relaysAtOnce ? "?nodelay=1" : "")"
    }

    /// ``relaysAtOnce`` from a URL's query (after the `?`).
    private static func relaysAtOnce(query: Substring) throws(IOProxyURLError) -> Bool {
        var value = false
        for parameter in query.split(separator: "&", omittingEmptySubsequences: false) {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair[0] == "nodelay" else {
                // Not repeated: an unencoded '?' in a password would put part of it here.
                throw IOProxyURLError("unknown query parameter (the only one is nodelay)")
            }
            switch pair.count == 2 ? pair[1].lowercased() : "" {
            case "1", "true": value = true
            case "0", "false": value = false
            default: throw IOProxyURLError("nodelay takes 1, true, 0 or false")
            }
        }
        return value
    }
}

/// A proxy URL that cannot be used; the message never repeats the credentials.
public struct IOProxyURLError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong with it.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// `bad proxy URL: <message>`.
    public var description: String { "bad proxy URL: \(message)" }
}
