import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushIO
import PushSync
import Testing

/// A push-server stand-in that answers every request with one status and body and keeps the last request as
/// `METHOD /path?name=value&...` (query decoded) and its JSON body.
final class RecordingServer: Sendable {
    let loop = EventLoop(name: "recording-server")
    let server: HTTPServer
    private let last = PThreadLock<(line: String, body: JSONValue?)?>(nil)
    var url: String { "http://127.0.0.1:\(server.port)" }

    init(status: Int, answer: String) throws {
        let last = self.last
        server = try HTTPServer(loop: loop, port: 0, maxBodyBytes: 1 << 20) { request, responder in
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let line = "\(request.method) \(request.path)" + (query.isEmpty ? "" : "?" + query)
            last.withLock { $0 = (line, try? JSONValue.parse(request.body)) }
            responder.respond(HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(answer.utf8)))
        }
    }

    /// The last request, if one came.
    var request: (line: String, body: JSONValue?)? { last.withLock { $0 } }

    func stop() {
        server.close()
        loop.shutdown()
    }
}

/// One run of a service command: what it sends and prints for an answer.
struct ServiceCallCase: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    /// The request line the stub should see, and the JSON body (nil: none).
    let request: String
    var body: JSONValue? = nil
    /// What the stub answers.
    var status = 200
    var answer = "{}"
    /// What pushctl prints on stdout, and its exit code.
    let stdout: String
    var exit: Int32 = 0

    var testDescription: String { arguments.prefix(2).joined(separator: " ") }
}

/// Every command that is one push-server request, run against a recording stub: the method, path, query and
/// body it sends, the line or table `--output table` prints for the answer, and the exit code.
@Suite("every service command's request and table against a recording stub")
struct ServiceCallTests {
    static let token = String(repeating: "ab", count: 32)

    static let cases: [ServiceCallCase] = [
        ServiceCallCase(
            arguments: ["pushes", "get", "p1"], request: "GET /v1/pushes/p1",
            answer: #"{"push_id":"p1","complete":true,"notifications":[{"token":"ab","state":"rejected","reason":"BadDeviceToken"}]}"#,
            stdout: "push p1: complete\nTOKEN  STATE     REASON          STATUS  APNS-ID\nab     rejected  BadDeviceToken  -       -\n", exit: 2),
        ServiceCallCase(
            arguments: ["devices", "add", "--token", token.uppercased(), "--user", "alice", "--kind", "push-to-start", "--attributes-type", "W"],
            request: "POST /v1/devices",
            body: [
                "token": .string(token), "user_id": "alice", "environment": "production", "kind": "push_to_start", "attributes_type": "W",
            ],
            status: 201, answer: #"{"kind":"push_to_start","token":"\#(token)","user_id":"alice","topic":"t","environment":"production"}"#,
            stdout: "registered push_to_start token \(token) for alice (topic t, production)\n"),
        ServiceCallCase(
            arguments: ["devices", "rm", token.uppercased()], request: "DELETE /v1/devices/\(token)", status: 204, answer: "",
            stdout: "removed \(token)\n"),
        ServiceCallCase(
            arguments: ["devices", "ls", "--user", "a b"], request: "GET /v1/users/a%20b/devices", answer: #"{"devices":[]}"#,
            stdout: "no devices\n"),
        ServiceCallCase(
            arguments: ["users", "put", "alice", "--name", "A", "--dog-name", "B", "--age", "3", "--image-url", "u"],
            request: "PUT /v1/users/alice", body: ["name": "A", "dog_name": "B", "age": 3, "image_url": "u"], status: 201,
            stdout: "created user alice\n"),
        ServiceCallCase(
            arguments: ["users", "get", "alice"], request: "GET /v1/users/alice", answer: #"{"name":"A","age":3}"#,
            stdout: "FIELD  VALUE\nage    3\nname   A\n"),
        ServiceCallCase(
            arguments: ["drop", "report", "--user", "a", "--peer", "b", "--distance", "0.5", "--direction", "0,0,-1"],
            request: "POST /v1/drops",
            body: ["user_id": "a", "peer_id": "b", "distance_m": 0.5, "direction": ["x": 0.0, "y": 0.0, "z": -1.0]],
            answer: #"{"state":"waiting","drop":{"id":"d1","initiator_id":"a","peer_id":"b"}}"#, stdout: "drop d1: waiting (a -> b)\n"),
        ServiceCallCase(
            arguments: ["drop", "cancel", "--user", "a"], request: "DELETE /v1/users/a/drop",
            answer: #"{"state":"cancelled","drop":{"id":"d1","initiator_id":"a","peer_id":"b"}}"#, stdout: "drop d1: cancelled (a -> b)\n"),
        ServiceCallCase(
            arguments: ["drop", "status", "--user", "a"], request: "GET /v1/users/a/drop",
            answer: #"{"state":"matched","drop":{"id":"d1","initiator_id":"a","peer_id":"b"},"mate_requests":[]}"#,
            stdout: "drop d1: matched (a -> b)\nno mate requests\n"),
        ServiceCallCase(
            arguments: ["mate-requests", "ls", "--user", "bob", "--role", "sender"], request: "GET /v1/users/bob/mate-requests?role=sender",
            answer: #"{"mate_requests":[{"id":"r1","state":"pending"}]}"#, stdout: "ID  STATE\nr1  pending\n"),
        ServiceCallCase(
            arguments: ["mate-requests", "accept", "r1", "--user", "bob"], request: "POST /v1/mate-requests/r1/accept",
            body: ["user_id": "bob"], stdout: "accepted r1\n"),
        ServiceCallCase(
            arguments: ["mate-requests", "decline", "r1", "--user", "bob"], request: "POST /v1/mate-requests/r1/decline",
            body: ["user_id": "bob"], stdout: "declined r1\n"),
        ServiceCallCase(
            arguments: ["apps", "ls"], request: "GET /v1/apps",
            answer: #"{"apps":[{"name":"main","topics":["t"],"credential":"p8","key_id":"K","team_id":"T","production":"ok"}]}"#,
            stdout: "NAME  TOPICS  CREDENTIAL  PRODUCTION  DEVELOPMENT  EXPIRES  RELOAD ERROR\n"
                + "main  t       p8 K/T      ok          -            -        -\n"),
        ServiceCallCase(
            arguments: ["webhooks", "add", "https://x.example/h", "--events", "notification.failed", "--id", "crm"],
            request: "POST /v1/webhooks", body: ["url": "https://x.example/h", "events": ["notification.failed"], "id": "crm"], status: 201,
            answer: #"{"id":"crm","url":"https://x.example/h","secret":"s"}"#,
            stdout: "registered webhook crm → https://x.example/h\nsecret: s  (shown once; receivers verify Webhook-Signature with it)\n"),
        ServiceCallCase(arguments: ["webhooks", "ls"], request: "GET /v1/webhooks", answer: #"{"webhooks":[]}"#, stdout: "no webhooks\n"),
        ServiceCallCase(
            arguments: ["webhooks", "rm", "crm"], request: "DELETE /v1/webhooks/crm", status: 204, answer: "",
            stdout: "removed webhook crm\n"),
        ServiceCallCase(
            arguments: ["webhooks", "deliveries", "crm"], request: "GET /v1/webhooks/crm/deliveries", answer: #"{"deliveries":[]}"#,
            stdout: "no failed deliveries\n"),
        ServiceCallCase(
            arguments: ["channels", "add", "--environment", "development", "--storage", "most-recent", "--topic", "t"],
            request: "POST /v1/channels", body: ["environment": "development", "message_storage_policy": 1, "topic": "t"], status: 201,
            answer: #"{"id":"c1","topic":"t","environment":"development","message_storage_policy":1}"#,
            stdout: "created channel c1 (topic t, development, storage policy 1)\n"),
        ServiceCallCase(
            arguments: ["channels", "ls", "--environment", "production", "--topic", "a b"],
            request: "GET /v1/channels?environment=production&topic=a b", answer: #"{"channels":[]}"#, stdout: "no channels\n"),
        ServiceCallCase(
            arguments: ["channels", "rm", "c1", "--environment", "production"], request: "DELETE /v1/channels/c1?environment=production",
            status: 204, answer: "", stdout: "deleted channel c1\n"),
        ServiceCallCase(
            arguments: ["channels", "rm", "c1", "--json"], request: "DELETE /v1/channels/c1", answer: #"{"deleted":true}"#,
            stdout: "{\"deleted\":true}\n"),
        ServiceCallCase(
            arguments: ["broadcast", "--channel", "c/1", "--payload", #"{"aps":{"event":"end","timestamp":1}}"#, "--priority", "5", "--wait"],
            request: "POST /v1/channels/c%2F1/broadcasts?wait=true", body: ["payload": ["aps": ["event": "end", "timestamp": 1]], "priority": 5],
            answer: #"{"notifications":[{"id":"n1","state":"accepted"}]}"#, stdout: "broadcast n1 to channel c/1: accepted\n"),
        ServiceCallCase(
            arguments: ["reload"], request: "POST /v1/admin/reload",
            answer: #"{"reloaded":["tls"],"apps":[{"name":"main","outcome":"kept","error":"bad file"}]}"#,
            stdout: "reloaded: tls\nAPP   OUTCOME  ERROR\nmain  kept     bad file\n"),
    ]

    @Test("sends the request its arguments ask for and prints the answer", arguments: cases)
    func run(_ run: ServiceCallCase) throws {
        let stub = try RecordingServer(status: run.status, answer: run.answer)
        defer { stub.stop() }
        let result = try PushCtlProcess.run(run.arguments + ["--url", stub.url], environment: ["PUSHCTL_API_KEY": "k"])
        #expect(result.status == run.exit, "\(result.stderr)")
        #expect(stub.request?.line == run.request)
        #expect(stub.request?.body == run.body)
        #expect(result.stdout == run.stdout)
    }
}
