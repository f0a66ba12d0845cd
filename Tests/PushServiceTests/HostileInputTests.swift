import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Input a push service meets on the open internet: each gets a 4xx JSON error or a closed connection,
/// the server stays up, and nothing is written.
@Suite("hostile input")
struct HostileInputTests {
    static let token = String(repeating: "b", count: 64)

    /// Raw bodies that are not valid JSON text at all, or are JSON of the wrong shape, each with the answer
    /// it must get: status, error code, and a piece of the message naming the reason.
    static let hostileBodies:
        [(
            label: String, method: String, path: String, body: [UInt8],
            status: Int, code: String, reason: String
        )] = [
            (
                "invalid UTF-8 in a string", "PUT", "/v1/users/zed",
                Array(#"{"name":""#.utf8) + [0xFF, 0xFE, 0xC3] + Array(#"","dog_name":"Rex"}"#.utf8),
                400, "malformed_json", "invalid UTF-8"
            ),
            (
                "overlong UTF-8 encoding", "POST", "/v1/pushes",
                Array(#"{"tokens":["\#(token)"],"alert":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
                400, "malformed_json", "invalid UTF-8"
            ),
            (
                "lone surrogate escape", "POST", "/v1/pushes", Array(#"{"tokens":["\#(token)"],"alert":"\ud800"}"#.utf8),
                400, "malformed_json", "lone high surrogate"
            ),
            (
                "NUL byte in the body", "POST", "/v1/devices", Array(#"{"token":"\#(token)","user_id":"zed""#.utf8) + [0] + Array("}".utf8),
                400, "malformed_json", "expected ',' or '}'"
            ),
            (
                "nesting 100,000 deep", "POST", "/v1/pushes", Array(String(repeating: "[", count: 100_000).utf8),
                400, "malformed_json", "nesting deeper than"
            ),
            (
                "a number too large", "PUT", "/v1/users/zed", Array(#"{"name":"Zed","dog_name":"Rex","age":1e999}"#.utf8),
                400, "malformed_json", "number out of range"
            ),
            (
                "a huge integer", "POST", "/v1/pushes", Array(#"{"tokens":["\#(token)"],"alert":"hi","priority":99999999999999999999999}"#.utf8),
                400, "invalid_field", "priority: out of range"
            ),
            (
                // 2^53: a JSON integer some peers cannot read exactly; the contract's maximum is 2^53 - 1.
                "an integer past 2^53 - 1", "POST", "/v1/pushes",
                Array(#"{"tokens":["\#(token)"],"alert":"hi","expiration":9007199254740992}"#.utf8),
                400, "invalid_field", "expiration: out of range"
            ),
            (
                "a negative integer past -(2^53 - 1)", "POST", "/v1/pushes",
                Array(#"{"tokens":["\#(token)"],"alert":"hi","badge":-9007199254740992}"#.utf8),
                400, "invalid_field", "badge: out of range"
            ),
            (
                "duplicate keys", "POST", "/v1/devices",
                Array(#"{"token":"\#(token)","token":"\#(token)","user_id":"zed","environment":"development"}"#.utf8),
                400, "malformed_json", "duplicate object key"
            ),
            (
                "10,001 tokens", "POST", "/v1/pushes",
                Array(("{\"tokens\":[" + Array(repeating: "\"\(token)\"", count: 10_001).joined(separator: ",") + "],\"alert\":\"hi\"}").utf8),
                400, "invalid_field", "at most 10000 tokens"
            ),
            (
                "a million-element array", "POST", "/v1/pushes",
                Array(("{\"tokens\":[" + Array(repeating: "1", count: 1_000_000).joined(separator: ",") + "],\"alert\":\"hi\"}").utf8),
                400, "invalid_field", "at most 10000 tokens"
            ),
            (
                "an injection string as a token", "POST", "/v1/pushes", Array(#"{"tokens":["'); DROP TABLE devices;--"],"alert":"hi"}"#.utf8),
                400, "invalid_field", "tokens[0]: not a device token"
            ),
            (
                "an injection string as a user id", "POST", "/v1/devices",
                Array(#"{"token":"\#(token)","user_id":"x'); DROP TABLE users;--","environment":"development"}"#.utf8),
                400, "invalid_field", "user_id: must be 1-64 characters"
            ),
            (
                "a payload over 4 KB", "POST", "/v1/pushes",
                Array(#"{"tokens":["\#(token)"],"payload":{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}}"#.utf8),
                413, "payload_too_large", "takes at most 4096"
            ),
            (
                "an unknown push type", "POST", "/v1/pushes", Array(#"{"tokens":["\#(token)"],"alert":"hi","push_type":"../../etc"}"#.utf8),
                400, "unknown_push_type", "unknown push_type"
            ),
            (
                "an unknown field", "POST", "/v1/devices",
                Array(#"{"token":"\#(token)","user_id":"zed","environment":"development","admin":true}"#.utf8),
                400, "invalid_field", "admin: unknown field"
            ),
            (
                "a wrong type", "POST", "/v1/pushes", Array(#"{"tokens":[{"$gt":""}],"alert":"hi"}"#.utf8),
                400, "invalid_field", "tokens[0]: must be a string"
            ),
            (
                "path traversal in an id", "PUT", "/v1/users/..%2F..%2Fetc%2Fpasswd", Array(#"{"name":"Zed","dog_name":"Rex"}"#.utf8),
                400, "invalid_path", "id must be 1-64 characters"
            ),
            (
                "an encoded NUL in an id", "PUT", "/v1/users/zed%00", Array(#"{"name":"Zed","dog_name":"Rex"}"#.utf8),
                400, "invalid_path", "id must be 1-64 characters"
            ),
            (
                "dot segments in the path", "GET", "/v1/users/../../v1/users/zed", [],
                404, "not_found", "no route"
            ),
            (
                "an over-long id", "PUT", "/v1/users/" + String(repeating: "z", count: 5_000), Array(#"{"name":"Zed","dog_name":"Rex"}"#.utf8),
                400, "invalid_path", "id must be 1-64 characters"
            ),
            (
                "an injection string in a push id", "GET", "/v1/pushes/x'%20OR%20'1'='1", [],
                400, "invalid_path", "id must be a lowercase UUID"
            ),
            (
                "a token with a path trick", "DELETE", "/v1/devices/..%2F\(token)", [],
                400, "invalid_path", "token must be an even number"
            ),
            (
                "null for a required field", "POST", "/v1/devices", Array(#"{"token":null,"user_id":"zed","environment":"development"}"#.utf8),
                400, "invalid_field", "token: must not be null"
            ),
        ]

    /// The service under attack, over plain HTTP or over TLS (its listener with a test certificate), and
    /// how to open a raw connection to it.
    struct Target {
        let harness: ServiceHarness
        let client: TLSContext?
        let files: TestCredentialFiles?

        static func start(overTLS: Bool) async throws -> Target {
            guard overTLS else { return Target(harness: try await ServiceHarness.start(), client: nil, files: nil) }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-tls-\(UUID().uuidString)").path
            let files = try TestCredentialFiles.write(to: directory, bundleID: ServiceHarness.topic, password: "pw")
            let harness = try await ServiceHarness.start {
                $0.tls = .init(certificatePath: files.serverCertificatePath, keyPath: files.serverKeyPath)
            }
            var configuration = TLSClientConfiguration()
            configuration.trust = .caFile(files.caCertificatePath)
            configuration.alpn = ["http/1.1"]
            return Target(harness: harness, client: try TLSContext.client(configuration), files: files)
        }

        func connect() throws -> RawHTTPConnection {
            try RawHTTPConnection(port: harness.server.port, tls: client)
        }

        func stop() async {
            await harness.stop()
            if let files { try? FileManager.default.removeItem(atPath: files.directory) }
        }
    }

    @Test(
        "malformed, oversized and tricky bodies and paths: each its own 4xx status and error code, nothing written, server up",
        arguments: [false, true])
    func hostileBodies(overTLS: Bool) async throws {
        let target = try await Target.start(overTLS: overTLS)
        for example in Self.hostileBodies {
            let connection = try target.connect()
            connection.write(RawHTTPConnection.request(example.method, example.path, body: example.body))
            let response = await connection.readResponse()
            #expect(response != nil, "\(example.label): an answer")
            guard let response else { continue }
            let error = (try? JSONValue.parse(response.body))?["error"]
            let body = String(decoding: response.body.prefix(200), as: UTF8.self)
            #expect(response.status == example.status, "\(example.label): got \(response.status) \(body)")
            #expect(error?["code"]?.stringValue == example.code, "\(example.label): got \(body)")
            #expect(error?["message"]?.stringValue?.contains(example.reason) == true, "\(example.label): got \(body)")
        }
        try await expectNothingWritten(target)
        await target.stop()
    }

    @Test(
        "a body on a GET, DELETE, TRACE or unknown method is never read as a second request: one answer, then close",
        arguments: ["GET", "DELETE", "TRACE", "QUERY"], [false, true])
    func unreadBodyIsNotASecondRequest(method: String, overTLS: Bool) async throws {
        let target = try await Target.start(overTLS: overTLS)
        let connection = try target.connect()
        let smuggled = Array("DELETE /v1/devices/\(Self.token) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ServiceHarness.apiKey)\r\n\r\n".utf8)
        connection.write(RawHTTPConnection.request(method, "/v1/users/zed", body: smuggled))
        let (answer, timedOut) = await connection.readToEnd()
        #expect(!timedOut, "the server closes the connection after its one answer")
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 ").count - 1 == 1, "exactly one answer: \(text)")
        #expect(text.hasPrefix(method == "GET" ? "HTTP/1.1 404" : "HTTP/1.1 405"), "\(text.prefix(80))")
        #expect(text.contains("Connection: close"))
        await target.stop()
    }

    @Test("a 10 MB body gets 413 or a closed connection; the server keeps serving", arguments: [false, true])
    func tenMegabyteBody(overTLS: Bool) async throws {
        let target = try await Target.start(overTLS: overTLS)
        let connection = try target.connect()
        var body = Array(#"{"tokens":["\#(Self.token)"],"alert":""#.utf8)
        body += [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20)
        body += Array(#""}"#.utf8)
        // The server may answer and close before the upload ends: a failed write is a fine outcome.
        connection.write(RawHTTPConnection.request("POST", "/v1/pushes", body: body, close: true))
        let (answer, timedOut) = await connection.readToEnd()
        #expect(!timedOut)
        let head = String(decoding: answer.prefix(64), as: UTF8.self)
        #expect(answer.isEmpty || head.hasPrefix("HTTP/1.1 413"), "got: \(head)")
        try await expectNothingWritten(target)
        await target.stop()
    }

    @Test("slow-loris connections are closed by the HTTP timeout while other callers are served")
    func slowLoris() async throws {
        let harness = try await ServiceHarness.start { $0.httpTimeout = .seconds(1) }
        // Fifty connections that send half a request head, and fifty that promise a body and never send it.
        var stalled: [RawHTTPConnection] = []
        for index in 0..<100 {
            let connection = try RawHTTPConnection(port: harness.server.port)
            if index.isMultiple(of: 2) {
                connection.write("POST /v1/pushes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServiceHarness.apiKey)\r\n")
            } else {
                connection.write(Array(RawHTTPConnection.request("POST", "/v1/pushes", body: Array(repeating: 0x20, count: 1000)).prefix(150)))
            }
            stalled.append(connection)
        }
        // Meanwhile the service answers a real caller at once.
        let health = try await harness.client.send("GET", "/healthz")
        #expect(health.status == 200)
        let put = try await harness.client.send("PUT", "/v1/users/amy", json: ["name": "Amy", "dog_name": "Bo"])
        #expect(put.status == 201)
        // Every stalled connection is closed by the server (each read returns at EOF, not at the safety timeout).
        for connection in stalled {
            let (_, timedOut) = await connection.readToEnd()
            #expect(!timedOut, "the server closed the stalled connection")
        }
        // Only the real caller's user was written.
        #expect(try await rowCounts(harness) == ["users": 1, "devices": 0, "outbox": 0, "drops": 0, "mate_requests": 0])
        #expect(try await harness.client.send("GET", "/healthz").status == 200)
        await harness.stop()
    }

    /// Rows in every table of the service's store.
    private func rowCounts(_ harness: ServiceHarness) async throws -> [String: Int] {
        let database = try #require(harness.server.repositories.database as? SQLiteDatabase)
        var counts: [String: Int] = [:]
        for table in ["users", "devices", "outbox", "drops", "mate_requests"] {
            counts[table] = try await database.rowCount(table)
        }
        return counts
    }

    private func expectNothingWritten(_ target: Target) async throws {
        let harness = target.harness
        #expect(try await rowCounts(harness) == ["users": 0, "devices": 0, "outbox": 0, "drops": 0, "mate_requests": 0])
        #expect(try await harness.server.repositories.outbox.counts().values.reduce(0, +) == 0)
        #expect(try await harness.server.repositories.users.user(id: "zed") == nil)
        #expect(try await harness.server.repositories.devices.devices(forUser: "zed", includeInvalidated: true).isEmpty)
        #expect(
            try await harness.server.repositories.devices.device(token: DeviceToken(stringLiteral: Self.token), topic: ServiceHarness.topic) == nil)
        #expect(harness.mock.counters().streams == 0)
        let connection = try target.connect()
        connection.write(RawHTTPConnection.request("GET", "/healthz", body: []))
        #expect(await connection.readResponse()?.status == 200, "the server is still up")
    }
}
