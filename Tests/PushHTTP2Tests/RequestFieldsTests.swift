import Foundation
import PushHTTP
import PushIO
import PushTLS
import Testing

@testable import PushHTTP2

/// Answers from captured fields only: the path, one header (echoed back as bytes) and whether a long
/// header arrived whole.
final class FieldsHandler: HTTP2ServerHandler {
    var requestFields: [String]? { [":path", "x-echo", "x-long"] }

    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest) {
        connection.respond(to: request.streamID, status: 500)
    }

    func connection(_ connection: HTTP2ServerConnection, didReceiveFields fields: HTTP2ServerRequestFields) {
        let longLength = fields.withValue(2) { $0?.count ?? -1 }
        let longIntact = fields.withValue(2) { value in value.map { $0.allSatisfy { $0 == UInt8(ascii: "l") } } ?? true }
        fields.withValue(1) { echo in
            connection.respond(to: fields.streamID, status: fields.value(0, hasPrefix: "/ok") ? 200 : 404, maxFields: 3, valueBytes: 96) {
                answer in
                if let echo { answer.add("x-echoed", echo, indexed: false) }
                let length = Array(String(longLength).utf8)
                _ = length.withUnsafeBytes { answer.add("x-long-length", $0) }
                answer.add("x-long-intact", length: 1) { $0[0] = longIntact ? UInt8(ascii: "y") : UInt8(ascii: "n") }
            }
        }
    }

    func connectionDidClose(_ connection: HTTP2ServerConnection) {}
}

@Suite("Requests delivered as captured fields, answers written as bytes")
struct RequestFieldsTests {
    let loop = EventLoop(name: "fields-loop")

    @Test("only the fields asked for arrive, values past a slot's room included; the answer's fields are written as bytes")
    func capturedFields() async throws {
        let server = try HTTP2Server(loop: loop, tls: try Credentials.shared.serverContext()) { _ in FieldsHandler() }
        defer { server.stop(graceful: false) }
        let connection = HTTP2ClientConnection(
            loop: loop,
            configuration: .init(host: "127.0.0.1", port: server.port, tls: try Credentials.shared.clientContext()))
        let long = String(repeating: "l", count: 1500)
        var requests: [HTTP2Request] = []
        for index in 0..<50 {
            var headers: [(name: String, value: String)] = [("x-echo", "echo-\(index)")]
            if index % 5 == 0 { headers.append(("x-long", long)) }
            let path = index % 2 == 0 ? "/ok/\(index)" : "/no/\(index)"
            requests.append(HTTP2Request(authority: "localhost", path: path, headers: headers, body: Array("body".utf8)))
        }
        let results = await sendAll(connection, requests)
        for (index, result) in results.enumerated() {
            let response = try result.get()
            #expect(response.status == (index % 2 == 0 ? 200 : 404))
            #expect(response.header("x-echoed") == "echo-\(index)")
            #expect(response.header("x-long-length") == (index % 5 == 0 ? "1500" : "-1"))
            #expect(response.header("x-long-intact") == "y")
        }
    }

    @Test("the session's memory pool: blocks keep their bytes when grown, calloc zeroes, freed blocks come back")
    func memoryPool() {
        let pool = HTTP2MemoryPool()
        let small = pool.allocate(20)!
        small.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 20)
        let grown = pool.reallocate(small, 2000)!
        #expect(UnsafeRawBufferPointer(start: grown, count: 20).allSatisfy { $0 == 0xAB })
        let zeroed = pool.allocateZeroed(10, 30)!
        #expect(UnsafeRawBufferPointer(start: zeroed, count: 300).allSatisfy { $0 == 0 })
        pool.release(zeroed)
        let again = pool.allocate(300)!
        #expect(again == zeroed)
        #expect(pool.reallocate(again, 310) == again)  // still within its class
        pool.release(again)
        pool.release(grown)
        pool.release(nil)
    }
}
