import Foundation
import PushService
import PushTLS
import Testing

@Suite("API keys in the configuration")
struct APIKeyConfigurationTests {
    static func load(file json: String, environment: [String: String] = [:], arguments: [String] = [])
        throws -> PushServiceConfiguration
    {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try PushServiceConfiguration.load(arguments: ["--config", path] + arguments, environment: environment)
    }

    @Test("strings and objects: names, digests, scopes and rate limits")
    func objects() throws {
        let digest = SHA256Digest.hex(of: "backend-key")
        let configuration = try Self.load(
            file: """
                {"api_keys": ["plain-key",
                  {"name": "backend", "sha256": "\(digest)", "scopes": ["send", "read"],
                   "rate_limit": {"requests_per_s": 50, "request_burst": 100, "notifications_per_s": 1000}},
                  {"name": "ops", "key": "sha256:\(SHA256Digest.hex(of: "ops-key"))", "scopes": ["admin"]}]}
                """)
        #expect(configuration.apiKeys.map(\.name) == ["key-1", "backend", "ops"])
        #expect(configuration.apiKeys[0] == (try APIKey(name: "key-1", secret: "plain-key")))
        #expect(configuration.apiKeys[0].scopes == Set(APIScope.allCases))
        #expect(configuration.apiKeys[1].digest == SHA256Digest.hash(Array("backend-key".utf8)))
        #expect(configuration.apiKeys[1].scopes == [.send, .read])
        #expect(
            configuration.apiKeys[1].rateLimit
                == APIRateLimit(
                    requestsPerSecond: 50, requestBurst: 100,
                    notificationsPerSecond: 1000))
        #expect(configuration.apiKeys[2].scopes == [.admin])
        #expect(APIKeyAuthenticator(keys: configuration.apiKeys).authenticate("Bearer ops-key")?.name == "ops")
    }

    @Test(
        "bad entries name the field and what is wrong",
        arguments: [
            (#"{"api_keys": [{"name": "a", "key": "k", "scopes": ["write"]}]}"#, "api_keys[0].scopes"),
            (#"{"api_keys": [{"name": "a", "key": "k", "sha256": "00"}]}"#, "exactly one of key and sha256"),
            (#"{"api_keys": [{"name": "a"}]}"#, "exactly one of key and sha256"),
            (#"{"api_keys": [{"name": "a", "key": "k", "extra": 1}]}"#, "api_keys[0].extra"),
            (#"{"api_keys": [{"name": "a", "sha256": "abc"}]}"#, "64 hex digits"),
            (#"{"api_keys": [{"name": "a", "key": "k", "rate_limit": {"requests_per_s": 0}}]}"#, "positive"),
            (#"{"api_keys": [{"name": "a", "key": "k1"}, {"name": "a", "key": "k2"}]}"#, "two API keys are named a"),
            (#"{"api_keys": ["same", {"name": "b", "key": "same"}]}"#, "same secret"),
            (#"{"api_keys": [{"name": "a", "key": "k", "scopes": []}]}"#, "no scopes"),
            (#"{"api_keys": [7]}"#, "api_keys[0]"),
        ])
    func badEntries(json: String, expected: String) throws {
        do {
            _ = try Self.load(file: json)
            Issue.record("loaded \(json)")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.exitCode == 78)
        }
    }

    @Test("PUSH_API_KEY and --api-key-file accept sha256: digests; a malformed one is refused")
    func environmentAndFlags() throws {
        let hex = SHA256Digest.hex(of: "env-key")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "# the flag's keys\nflag-key\n\nsha256:\(SHA256Digest.hex(of: "second-flag-key"))\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let configuration = try PushServiceConfiguration.load(
            arguments: ["--api-key-file", file],
            environment: ["PUSH_API_KEY": "sha256:\(hex), other"])
        #expect(configuration.apiKeys.map(\.name) == ["key-1", "key-2", "key-3", "key-4"])
        let authenticator = APIKeyAuthenticator(keys: configuration.apiKeys)
        #expect(authenticator.authenticate("Bearer env-key")?.name == "key-1")
        #expect(authenticator.authenticate("Bearer flag-key")?.name == "key-3")
        #expect(authenticator.authenticate("Bearer second-flag-key")?.name == "key-4")
        try "sha256:xyz\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) {
            try PushServiceConfiguration.load(arguments: ["--api-key-file", file], environment: [:])
        }
    }
}
