internal import CNGHTTP2
public import PushIO
public import PushTLS

/// The SETTINGS a server announces.
public struct HTTP2ServerSettings: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams: Int = 1000
    /// SETTINGS_HEADER_TABLE_SIZE.
    public var headerTableSize: Int = 4096
    /// SETTINGS_MAX_FRAME_SIZE.
    public var maxFrameSize: Int = 16384
    /// SETTINGS_MAX_HEADER_LIST_SIZE.
    public var maxHeaderListSize: Int = 8000
    /// SETTINGS_INITIAL_WINDOW_SIZE.
    public var initialWindowSize: Int = 65535
    /// Response header fields whose values change with every response (ids): sent as literals never
    /// indexed, so they do not churn the HPACK dynamic table of either side.
    public var unindexedFields: [String] = []

    /// APNs' values.
    public init() {}

    var entries: [(id: Int32, value: UInt32)] {
        [
            (Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), UInt32(maxConcurrentStreams)),
            (Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue), UInt32(headerTableSize)),
            (Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), UInt32(maxFrameSize)),
            (Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), UInt32(maxHeaderListSize)),
            (Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), UInt32(initialWindowSize)),
        ]
    }
}

/// An HTTP/2 server (TLS with ALPN h2, or cleartext prior-knowledge h2) on one event loop.
///
/// `@unchecked Sendable`: its mutable state is touched only on `loop`'s thread, which ``settings`` and
/// ``openConnections`` check (`preconditionInEventLoop`; `init` and ``stop(graceful:)`` hop there, and
/// `port` is fixed once `init` returns).
public final class HTTP2Server: @unchecked Sendable {
    /// The loop serving every connection.
    public let loop: EventLoop
    private var listener: IOListener?
    private var connections: [ObjectIdentifier: HTTP2ServerConnection] = [:]
    private let makeHandler: (HTTP2ServerConnection) -> any HTTP2ServerHandler
    /// SETTINGS for new connections (changeable on the loop thread).
    public var settings: HTTP2ServerSettings {
        get {
            loop.preconditionInEventLoop()
            return newConnectionSettings
        }
        set {
            loop.preconditionInEventLoop()
            newConnectionSettings = newValue
        }
    }
    private var newConnectionSettings: HTTP2ServerSettings

    /// Listens on `host:port` (0 picks a port) and serves each connection with the handler `makeHandler` returns.
    /// Call on any thread; binding happens on the loop.
    public init(
        loop: EventLoop, host: String = "127.0.0.1", port: Int = 0, tls: TLSContext?,
        settings: HTTP2ServerSettings = HTTP2ServerSettings(),
        makeHandler: @escaping (HTTP2ServerConnection) -> any HTTP2ServerHandler
    ) throws {
        self.loop = loop
        newConnectionSettings = settings
        self.makeHandler = makeHandler
        let listener = try loop.submitSync { [self] in
            try IOListener(loop: loop, host: host, port: port, tls: tls) { [unowned self] stream in self.accept(stream) }
        }
        self.listener = listener
        self.port = listener.port
    }

    /// The bound port.
    public private(set) var port = 0

    private func accept(_ stream: IOStream) {
        let connection = HTTP2ServerConnection(stream: stream, settings: newConnectionSettings) { [weak self] closed in
            self?.connections[ObjectIdentifier(closed)] = nil
        }
        connection.handler = makeHandler(connection)
        connections[ObjectIdentifier(connection)] = connection
    }

    /// Open connections (loop thread only).
    public var openConnections: [HTTP2ServerConnection] {
        loop.preconditionInEventLoop()
        return Array(connections.values)
    }

    /// Stops listening and closes every connection; waits for the loop to do it unless called on the loop.
    public func stop(graceful: Bool = true) {
        try? loop.submitSync { [self] in
            self.listener?.close()
            self.listener = nil
            for connection in self.connections.values {
                if graceful { connection.goAway(debugData: Array(#"{"reason":"Shutdown"}"#.utf8)) } else { connection.abort() }
            }
            if !graceful { self.connections.removeAll() }
        }
    }
}
