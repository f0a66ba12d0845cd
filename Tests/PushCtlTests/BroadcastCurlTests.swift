import APNSCore
import Foundation
import JSON
import PushTLS
import TestSupport
import Testing

/// Apple's curl commands from "Sending channel management requests to APNs" and "Sending broadcast push
/// notification requests to APNs", against a `pushctl mock-apns` child.
@Suite("curl against pushctl mock-apns: channel management and broadcast as in Apple's documents")
struct BroadcastCurlTests {
    /// Runs curl with `arguments` and `url`; returns the status, the body and the response headers.
    static func curl(_ arguments: [String], url: String, in directory: URL) async throws -> (status: Int, body: String, headers: String) {
        let headerFile = directory.appendingPathComponent("headers-\(UUID().uuidString).txt").path
        let result = try await ToolProcess.run(
            "curl", ["--http2", "--silent", "--show-error", "--dump-header", headerFile, "--write-out", "\n%{http_code}"] + arguments + [url])
        let newline = try #require(result.output.lastIndex(of: "\n"), "curl: \(result.output)")
        let status = try #require(Int(result.output[result.output.index(after: newline)...]), "curl: \(result.output)")
        let headers = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return (status, String(result.output[..<newline]), headers)
    }

    /// The value of response header `name` in curl's header dump.
    static func header(_ name: String, in dump: String) -> String? {
        for line in dump.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// A provider token for the mock's `.p8` key, as Apple's samples send it (`authorization: bearer <token>`).
    static func providerToken(_ mock: MockAPNSProcess) throws -> String {
        let key = try ES256PrivateKey(pkcs8PEM: try String(contentsOfFile: mock.path("p8"), encoding: .utf8))
        let header: JSONValue = ["alg": "ES256", "kid": .string(mock.path("key_id"))]
        let claims: JSONValue = ["iss": .string(mock.path("team_id")), "iat": .int(Int64(Date().timeIntervalSince1970))]
        let input = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(claims.serialized())
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    @Test("create a channel with a JWT on the management port (201, apns-channel-id), broadcast to it with the certificate (200)")
    func createAndBroadcast() async throws {
        let mock = try MockAPNSProcess()
        var stopped = false
        defer { if !stopped { _ = mock.stop() } }
        let channelPort = try #require(mock.manifest["channel_port"] as? Int)
        #expect(channelPort > 0 && channelPort != mock.port)
        let bundle = mock.path("bundle_id")
        let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"

        let created = try await Self.curl(
            [
                "-X", "POST", "--cacert", mock.path("ca"),
                "-H", "authorization: bearer \(try Self.providerToken(mock))",
                "-H", "apns-request-id: \(requestID)",
                "-d", #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#,
            ], url: "https://127.0.0.1:\(channelPort)/1/apps/\(bundle)/channels", in: mock.directory)
        #expect(created.status == 201, "\(created.body)")
        #expect(created.body.isEmpty)
        #expect(Self.header("apns-request-id", in: created.headers) == requestID)
        let channel = try #require(Self.header("apns-channel-id", in: created.headers))
        #expect(APNSChannelID(channel).isWellFormed)

        let certificate = [
            "--cert-type", "P12", "--cert", "\(mock.path("client_p12")):\(mock.path("client_p12_password"))", "--cacert", mock.path("ca"),
        ]
        let pushURL = "https://127.0.0.1:\(mock.port)/4/broadcasts/apps/\(bundle)"
        let update = #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"currentHealthLevel":0.0}}}"#
        let sent = try await Self.curl(
            certificate + [
                "-X", "POST", "-H", "apns-push-type: liveactivity", "-H", "apns-expiration: 0", "-H", "apns-priority: 10",
                "-H", "apns-channel-id: \(channel)", "-d", update,
            ], url: pushURL, in: mock.directory)
        #expect(sent.status == 200, "\(sent.body)")
        #expect(Self.header("apns-request-id", in: sent.headers).map { APNSID.isValid($0) } == true)
        #expect(Self.header("apns-unique-id", in: sent.headers).map { APNSID.isValid($0) } == true)

        // The same broadcast to a channel that does not exist: Apple's sample error answer.
        let unknown = try await Self.curl(
            certificate + [
                "-X", "POST", "-H", "apns-push-type: liveactivity", "-H", "apns-expiration: 0", "-H", "apns-priority: 10",
                "-H", "apns-channel-id: dHN0LXNyY2gtY2hubA==", "-d", update,
            ], url: pushURL, in: mock.directory)
        #expect(unknown.status == 400)
        #expect(unknown.body == #"{"reason":"ChannelNotRegistered"}"#)
        stopped = true
        #expect(mock.stop() == 0)
    }
}
