import APNSCore
import PushHTTP1
import PushIO
import PushSync

/// The mock's control API: a small JSON API over HTTP/1.1 on its own loop, by default on 127.0.0.1,
/// so a test suite in any language can program rules, read records, wait for them, turn the fault
/// knobs and reset between tests (`docs/mock-control.yaml` describes every route). Each change applies
/// to the next request the mock receives, on connections already open too.
public final class MockAPNSControlServer: Sendable {
    /// The mock it controls.
    public let mock: MockAPNSServer
    /// The bound address.
    public let host: String
    /// The bound port.
    public let port: Int
    private let http: HTTPServer
    private let loop: EventLoop
    private let stopped = PThreadLock(false)

    /// Serves the control API for `mock` on `host:port` (0 picks a free port).
    public init(mock: MockAPNSServer, host: String = "127.0.0.1", port: Int = 0) throws {
        let loop = EventLoop(name: "mock-apns-control")
        let router = MockAPNSControlRouter(mock: mock)
        do {
            // Long polls last up to `maxMillis`; evhttp's timeout must not cut them first.
            http = try HTTPServer(
                loop: loop, host: host, port: port, maxBodyBytes: 1 << 20,
                timeout: .milliseconds(MockAPNSControlCodec.maxMillis) + .seconds(30)
            ) { request, responder in
                router.handle(request, responder: responder)
            }
        } catch {
            loop.shutdown()
            throw error
        }
        self.mock = mock
        self.host = host
        self.loop = loop
        self.port = http.port
    }

    /// The base URL, e.g. `http://127.0.0.1:PORT`.
    public var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)"
    }

    /// Stops serving (open long polls get no answer) and ends its loop. Idempotent.
    public func stop() {
        let first = stopped.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        http.close()
        loop.shutdown()
    }

    deinit {
        stop()
    }
}

extension MockAPNSServer {
    /// Starts the control API for this server on `host:port` (0 picks a free port).
    public func startControlServer(host: String = "127.0.0.1", port: Int = 0) throws -> MockAPNSControlServer {
        try MockAPNSControlServer(mock: self, host: host, port: port)
    }
}
