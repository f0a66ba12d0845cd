public import PushIO
public import PushTLS

extension HTTP2ClientConnection {
    /// How to reach the server and how to behave.
    public struct Configuration: Sendable {
        /// Host name or IP literal.
        public var host: String
        /// TCP port.
        public var port: Int
        /// TLS context; nil for cleartext HTTP/2 (prior knowledge).
        public var tls: TLSContext?
        /// Name to verify in the server certificate and send as SNI (default `host`).
        public var serverName: String?
        /// A proxy to tunnel through (HTTP CONNECT or SOCKS5); TLS and ALPN still run with `host`.
        public var proxy: IOProxy?
        /// Our own ceiling on concurrent streams, below the server's.
        public var maxConcurrentStreams: Int = 1000
        /// Time allowed for TCP + the proxy's tunnel + TLS + the first SETTINGS.
        public var connectTimeout: Duration = .seconds(10)
        /// Send a PING after this long idle (nil: never).
        public var pingInterval: Duration? = .seconds(60)
        /// Close the connection when a PING is not answered within this time.
        public var pingTimeout: Duration = .seconds(10)
        /// Close gracefully after this long without streams (nil: never).
        public var idleTimeout: Duration?
        /// Stop opening streams while more than this many bytes wait to be written.
        public var outputHighWater: Int = 1 << 20
        /// Request header fields whose values change with every request (ids): sent as literals never
        /// indexed, so they do not churn the HPACK dynamic table of either side.
        public var unindexedFields: [String] = []

        /// A configuration for `host:port`.
        public init(host: String, port: Int, tls: TLSContext?, serverName: String? = nil) {
            self.host = host
            self.port = port
            self.tls = tls
            self.serverName = serverName
        }
    }
}
