import Foundation
import PushHTTP2
import PushIO
import PushTLS
import Testing

/// An exchange that keeps what it is handed and reports its end through a continuation.
final class RecordingExchange: HTTP2ClientExchange {
    var fields: [String: String] = [:]
    var body: [UInt8] = []
    var ends: [HTTP2ClientFailure?] = []
    var onEnd: (() -> Void)?

    override func receivedHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        fields[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
    }

    override func receivedData(_ bytes: UnsafeRawBufferPointer) {
        body.append(contentsOf: bytes)
    }

    override func finished(_ failure: HTTP2ClientFailure?) {
        ends.append(failure)
        onEnd?()
    }
}

/// What one exchange saw, copied off the loop.
struct ExchangeRecord: Sendable, Equatable {
    var status: Int
    var path: String?
    var body: [UInt8]
    var ends: Int
    var failed: Bool
}

@Suite("HTTP/2 client exchanges (one object per request)")
struct ClientExchangeTests {
    let loop = EventLoop(name: "exchange-loop")

    func makeServer() throws -> HTTP2Server {
        try HTTP2Server(loop: loop, tls: try Credentials.shared.serverContext()) { _ in EchoHandler() }
    }

    func makeClient(port: Int) throws -> HTTP2ClientConnection {
        let configuration = HTTP2ClientConnection.Configuration(
            host: "127.0.0.1", port: port, tls: try Credentials.shared.clientContext())
        return HTTP2ClientConnection(loop: loop, configuration: configuration)
    }

    /// Sends `exchange` on `connection` and waits for its end.
    func run(_ exchange: LoopBound<RecordingExchange>, on connection: HTTP2ClientConnection) async -> ExchangeRecord {
        await withCheckedContinuation { continuation in
            loop.execute {
                let recording = exchange.value
                recording.onEnd = {
                    recording.onEnd = nil
                    continuation.resume(
                        returning: ExchangeRecord(
                            status: recording.status, path: recording.fields["x-path"], body: recording.body,
                            ends: recording.ends.count, failed: recording.ends.last.map { $0 != nil } ?? false))
                }
                connection.send(recording)
            }
        }
    }

    @Test("an exchange gets the status, each header field and the body, and one end; sent again, it starts clean")
    func exchangeReceivesTheResponse() async throws {
        let server = try makeServer()
        defer { server.stop(graceful: false) }
        let connection = try makeClient(port: server.port)
        let exchange = LoopBound(
            handingOver: RecordingExchange(
                request: HTTP2Request(authority: "localhost", path: "/first", body: Array("one".utf8))),
            to: loop)
        let first = await run(exchange, on: connection)
        #expect(first == ExchangeRecord(status: 200, path: "/first", body: Array("one".utf8), ends: 1, failed: false))
        // The same object again, with another request: what the first answer left is not seen twice.
        try await onLoop(loop) {
            exchange.value.request = HTTP2Request(authority: "localhost", path: "/second", body: [])
            exchange.value.body = []
        }
        let second = await run(exchange, on: connection)
        #expect(second == ExchangeRecord(status: 200, path: "/second", body: [], ends: 2, failed: false))
    }

    @Test("many exchanges written together: every one answered once, with its own body")
    func manyExchangesTogether() async throws {
        let server = try makeServer()
        defer { server.stop(graceful: false) }
        let connection = try makeClient(port: server.port)
        let count = 300
        let bodies = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[[UInt8]], any Error>) in
            loop.execute {
                var results = [[UInt8]?](repeating: nil, count: count)
                var remaining = count
                for index in 0..<count {
                    let exchange = RecordingExchange(
                        request: HTTP2Request(authority: "localhost", path: "/\(index)", body: Array("body \(index)".utf8)))
                    exchange.onEnd = { [unowned exchange] in
                        results[index] = exchange.ends.count == 1 && exchange.ends[0] == nil ? exchange.body : nil
                        remaining -= 1
                        if remaining == 0 { continuation.resume(returning: results.map { $0 ?? [] }) }
                    }
                    connection.enqueue(exchange)
                }
                connection.writeQueued()
            }
        }
        #expect(bodies == (0..<count).map { Array("body \($0)".utf8) })
    }
}
