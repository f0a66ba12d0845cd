import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushIO
import PushSync
import Testing

/// A stand-in for push-server's `POST /v1/pushes` and `GET /healthz` with the real service's shapes
/// (docs/openapi.yaml): checks the bearer key; 202 `{push_id, notifications:[{id, token}]}`, or with
/// `?wait=true` 200 `{push_id, complete, counts, notifications:[{id, token, state, status, reason, ...}]}`
/// (tokens starting `00` are rejected with BadDeviceToken).
final class StubPushServer: Sendable {
    let loop = EventLoop(name: "stub-push-server")
    let server: HTTPServer
    let received = Counter()
    let requests = Counter()
    var url: String { "http://127.0.0.1:\(server.port)" }

    init(apiKey: String) throws {
        let received = self.received
        let requests = self.requests
        server = try HTTPServer(loop: loop, port: 0, maxBodyBytes: 4 << 20) { request, responder in
            guard request.header("authorization") == "Bearer \(apiKey)" else {
                responder.respond(
                    HTTPResponse(status: 401, body: Array(#"{"error":{"code":"unauthorized","message":"missing or wrong API key"}}"#.utf8)))
                return
            }
            if request.path == "/healthz" {
                responder.respond(
                    HTTPResponse(
                        status: 200, body: Array(#"{"status":"ok","database":"ok","apns":{"production":"ok","development":"ok"}}"#.utf8)))
                return
            }
            guard request.method == "POST", request.path == "/v1/pushes",
                let body = try? JSONValue.parse(request.body), let tokens = body["tokens"]?.arrayValue,
                body["payload"]?["aps"] != nil
            else {
                responder.respond(HTTPResponse(status: 400, body: Array(#"{"error":{"code":"invalid_field","message":"bad request"}}"#.utf8)))
                return
            }
            requests.add(1)
            received.add(tokens.count)
            let wait = request.queryValue("wait") == "true"
            var counts: [String: Int64] = [:]
            let notifications: [JSONValue] = tokens.map { token in
                let id = JSONValue.string(UUID().uuidString.lowercased())
                guard wait else { return ["id": id, "token": token] }
                let rejected = (token.stringValue ?? "").hasPrefix("00")
                counts[rejected ? "rejected" : "accepted", default: 0] += 1
                return [
                    "id": id, "token": token, "topic": "com.sniffmeet.app", "environment": "production",
                    "state": rejected ? "rejected" : "accepted", "attempts": 1, "status": rejected ? 400 : 200,
                    "reason": rejected ? "BadDeviceToken" : .null, "apns_id": .string(APNSID.generate()),
                    "apns_unique_id": .null, "updated_at": "2026-11-29T20:00:00.000Z",
                ]
            }
            var answer: JSONValue = ["push_id": .string(UUID().uuidString.lowercased()), "notifications": .array(notifications)]
            if wait {
                answer = [
                    "push_id": answer["push_id"] ?? .null, "complete": true,
                    "counts": .object(counts.mapValues { .int($0) }), "notifications": .array(notifications),
                ]
            }
            responder.respond(
                HTTPResponse(
                    status: wait ? 200 : 202, headers: [("Content-Type", "application/json")],
                    body: answer.serialized()))
        }
    }

    func stop() {
        server.close()
        loop.shutdown()
    }
}

/// A thread-safe count.
final class Counter: Sendable {
    private let storage = PThreadLock(0)
    func add(_ amount: Int) { storage.withLock { $0 += amount } }
    var value: Int { storage.withLock { $0 } }
}

@Suite("service commands against a stub push-server")
struct StubServiceTests {
    @Test("100,000 tokens go in batches with progress lines and a summary; rejections exit 2")
    func bulk() throws {
        let stub = try StubPushServer(apiKey: "k")
        defer { stub.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-\(UUID().uuidString).txt")
        var text = ""
        for index in 0..<100_000 {
            let prefix = index % 1000 == 0 ? "00" : "ab"
            text += prefix + String(format: "%062x", index) + "\n"
        }
        try Data(text.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try PushCtlProcess.run(
            [
                "send", "--tokens-file", path.path, "--body", "hi", "--wait", "--json",
                "--url", stub.url,
            ], environment: ["PUSHCTL_API_KEY": "k"])
        #expect(result.status == 2, "\(result.stderr)")
        let summary = try JSONValue.parse(Array(result.stdout.utf8))
        #expect(summary["total"]?.intValue == 100_000)
        #expect(summary["batches"]?.intValue == 20)
        #expect(summary["outcomes"]?["accepted"]?.intValue == 99_900)
        #expect(summary["outcomes"]?["rejected"]?.intValue == 100)
        #expect(summary["reasons"]?["BadDeviceToken"]?.intValue == 100)
        #expect(stub.received.value == 100_000)
        #expect(stub.requests.value == 20)
        let progress = result.stderr.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
        #expect(progress.count == 20)
        #expect(progress.last?.contains("100000/100000 (100%)") == true)
    }

    @Test("a refused API key exits 77 with one line")
    func authRefused() throws {
        let stub = try StubPushServer(apiKey: "k")
        defer { stub.stop() }
        let result = try PushCtlProcess.run(
            [
                "send", "--token", String(repeating: "ab", count: 32), "--body", "x",
                "--url", stub.url,
            ], environment: ["PUSHCTL_API_KEY": "wrong"])
        #expect(result.status == 77)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("PUSHCTL_API_KEY"))
    }

    @Test("send --token --wait prints a table; --json parses back")
    func tokens() throws {
        let stub = try StubPushServer(apiKey: "k")
        defer { stub.stop() }
        let good = String(repeating: "ab", count: 32)
        let table = try PushCtlProcess.run(
            ["send", "--token", good, "--body", "x", "--wait", "--url", stub.url],
            environment: ["PUSHCTL_API_KEY": "k"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("STATE"))
        #expect(table.stdout.contains("accepted"))
        let json = try PushCtlProcess.run(
            ["send", "--token", good, "--data", "n=1", "--wait", "--json", "--url", stub.url],
            environment: ["PUSHCTL_API_KEY": "k"])
        #expect(try JSONValue.parse(Array(json.stdout.utf8))["notifications"]?[0]?["state"]?.stringValue == "accepted")
    }
}
