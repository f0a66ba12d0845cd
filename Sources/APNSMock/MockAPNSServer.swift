import APNSCore
import PushHTTP2
public import PushIO
import PushSync
import PushTLS
import Synchronization

/// An in-process APNs server that behaves like Apple's: HTTP/2 over TLS with ALPN h2, client
/// certificates required (or provider tokens, with `MockAPNSTokenAuthenticator`), Apple's request rules and reasons (see `MockAPNSRules`), token state,
/// fault injection and recording. Several can run in one process; each listens once `init` returns.
public final class MockAPNSServer: Sendable {
    /// The configuration it was started with.
    public let configuration: Configuration
    /// The bound TCP port.
    public let port: Int
    /// What clients trust to reach it.
    public let credentials: Credentials
    /// The loop serving every connection.
    public let loop: EventLoop
    let core: MockAPNSCore
    let server: HTTP2Server
    private let ownsLoop: Bool
    private let stopped = Atomic<Bool>(false)

    /// Starts listening on `configuration.host:port`, on `loop` or on a loop of its own.
    public init(configuration: Configuration, loop: EventLoop? = nil) throws {
        let tls = try configuration.makeServerTLS()
        let core = MockAPNSCore(configuration: configuration)
        var settings = HTTP2ServerSettings()
        // Token auth (Apple): one stream until the connection shows a valid token; the handler raises it.
        settings.maxConcurrentStreams = core.startsAtOneStream ? 1 : configuration.maxConcurrentStreams
        // Ids differ in every answer: never indexed, so they do not churn either side's HPACK table.
        settings.unindexedFields = [APNSHeader.id, APNSHeader.uniqueID, APNSHeader.requestID]
        let serverLoop = loop ?? EventLoop(name: "mock-apns")
        do {
            server = try HTTP2Server(
                loop: serverLoop, host: configuration.host, port: configuration.port,
                tls: tls, settings: settings
            ) { connection in
                MockAPNSConnectionHandler(core: core, connection: connection)
            }
        } catch {
            if loop == nil { serverLoop.shutdown() }
            throw error
        }
        self.configuration = configuration
        self.core = core
        self.loop = serverLoop
        ownsLoop = loop == nil
        port = server.port
        credentials = Credentials(caPEM: configuration.serverCAPEM ?? configuration.serverIdentity.certificate.pem)
    }

    deinit {
        stop()
    }

    /// Stops listening, sends GOAWAY `{"reason":"Shutdown"}` to every connection, lets the loop run a few
    /// turns so those frames and the closes reach the kernel, resets connections still waiting for delayed
    /// answers, and ends its own loop. Idempotent. On the server's own loop thread (a handler dropping
    /// the last reference) it cannot wait for those turns: connections are then reset at once.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let server = self.server
        let recorder = core.recorder
        MockAPNSLoopTurns.stop(server, on: loop) { recorder.countGoAways(server.openConnections.count) }
        if ownsLoop { loop.shutdown() }
    }
}
