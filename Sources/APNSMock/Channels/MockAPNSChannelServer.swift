import APNSCore
import PushHTTP2
import PushIO
import PushSync
import PushTLS
import Synchronization

/// A mock server's channel management listener: Apple serves channel management on hosts and ports of
/// its own (2195 development, 2196 production), so the mock does too. It shares the push server's TLS
/// identity, client-certificate policy, authenticator, knobs, handler and channels, so a channel made
/// here takes broadcasts on the push listener. Start one with ``MockAPNSServer/startChannelServer(host:port:)``.
public final class MockAPNSChannelServer: Sendable {
    /// The bound TCP port.
    public let port: Int
    /// The bound address.
    public let host: String
    private let loop: EventLoop
    private let server: HTTP2Server
    private let stopped = Atomic<Bool>(false)

    init(core: MockAPNSCore, host: String, port: Int) throws {
        let configuration = core.configuration
        let tls = try configuration.makeServerTLS()
        var settings = HTTP2ServerSettings()
        settings.maxConcurrentStreams = configuration.maxConcurrentStreams
        settings.unindexedFields = [APNSHeader.requestID]
        let loop = EventLoop(name: "mock-apns-channels")
        let connections = Atomic<Int>(0)
        do {
            server = try HTTP2Server(loop: loop, host: host, port: port, tls: tls, settings: settings) { _ in
                MockAPNSChannelHandler(core: core, id: connections.add(1, ordering: .relaxed).newValue)
            }
        } catch {
            loop.shutdown()
            throw error
        }
        self.loop = loop
        self.host = host
        self.port = server.port
    }

    deinit {
        stop()
    }

    /// Stops listening, sends GOAWAY to open connections, lets those frames go out, closes the rest and
    /// ends the listener's loop. Idempotent.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        MockAPNSLoopTurns.stop(server, on: loop)
        loop.shutdown()
    }
}
