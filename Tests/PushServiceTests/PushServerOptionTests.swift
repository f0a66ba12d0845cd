import ArgumentParsing
import Foundation
import PushIO
import PushService
import PushTLS
import TestSupport
import Testing

@Suite("push-server options: the shared grammar and the secret policy")
struct PushServerOptionTests {
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("push-options-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The error `load` stops with (nil when it loads).
    static func error(_ arguments: [String], environment: [String: String] = [:]) -> ConfigurationError? {
        do {
            _ = try PushServiceConfiguration.load(arguments: arguments, environment: environment)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "--api-key and --apns-password are refused whatever their value, naming the file option and the variable",
        arguments: [
            (["--api-key", "hunter2"], "--api-key-file FILE or PUSH_API_KEY"),
            (["--api-key=hunter2"], "--api-key-file FILE or PUSH_API_KEY"),
            (["--apns-password", "hunter2"], "--apns-password-file FILE or PUSH_APNS_PASSWORD"),
        ])
    func secretOptionsRefused(_ arguments: [String], alternative: String) async {
        let error = Self.error(arguments)
        #expect(error?.exitCode == 64)
        #expect(error?.message.contains("secrets are never taken as option values") == true, "\(String(describing: error))")
        #expect(error?.message.contains("use \(alternative)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("hunter2") == false)
        #expect(await PushServerLauncher.main(arguments: arguments, environment: [:]) == 64)
    }

    @Test("a --database or --apns-proxy URL with a password is refused; the same URL from the environment is taken")
    func urlPasswords() throws {
        for (option, variable) in [("--database", "PUSH_DATABASE"), ("--apns-proxy", "PUSH_APNS_PROXY")] {
            let url = option == "--database" ? "postgres://push:hunter2@db:5432/push" : "http://push:hunter2@proxy:3128"
            let error = Self.error([option, url])
            #expect(error?.exitCode == 64)
            #expect(error?.message.contains("\(option) is refused: its URL holds a password") == true, "\(String(describing: error))")
            #expect(error?.message.contains(variable) == true)
            #expect(error?.message.contains("hunter2") == false)
            let fromEnvironment = try PushServiceConfiguration.load(arguments: [], environment: [variable: url])
            if option == "--database" {
                #expect(fromEnvironment.databasePath == url)
            } else {
                #expect(fromEnvironment.apns.proxy(for: "api.push.apple.com")?.password == "hunter2")
            }
        }
        let withoutPassword = try PushServiceConfiguration.load(arguments: ["--database=postgres://push@db/push"], environment: [:])
        #expect(withoutPassword.databasePath == "postgres://push@db/push")
    }

    @Test("--apns-password-file and --api-key-file read their secrets from files; an unreadable or empty file stops the start")
    func secretFiles() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let password = try SecretFiles.write("p12 pass", to: directory + "/p12.password")
        let first = try SecretFiles.write("one\n# a comment\n\ntwo", to: directory + "/keys-1")
        let second = try SecretFiles.write("three", to: directory + "/keys-2")
        let configuration = try PushServiceConfiguration.load(
            arguments: ["--apns-password-file", password, "--api-key-file", first, "--api-key-file=\(second)"], environment: [:])
        #expect(configuration.apns.password == "p12 pass")
        #expect(
            configuration.apiKeys == [
                try APIKey(name: "key-1", secret: "one"), try APIKey(name: "key-2", secret: "two"), try APIKey(name: "key-3", secret: "three"),
            ])
        let missing = Self.error(["--apns-password-file", directory + "/nope"])
        #expect(missing?.exitCode == 78)
        #expect(missing?.message.contains("--apns-password-file") == true)
        let empty = try SecretFiles.write("# nothing", to: directory + "/empty")
        #expect(Self.error(["--api-key-file", empty])?.message.contains("holds no key") == true)
    }

    @Test(
        "the grammar: unknown options, missing values, values on switches, repeats and positionals are usage errors (64)",
        arguments: [
            (["--bogus"], "unknown option '--bogus'"),
            (["--port"], "option '--port' needs a value"),
            (["--embedded=true"], "option '--embedded' takes no value"),
            (["--port", "1", "--port", "2"], "option '--port' given more than once"),
            (["serve"], "unexpected argument 'serve'"),
        ])
    func usageErrors(_ arguments: [String], message: String) {
        let error = Self.error(arguments)
        #expect(error?.exitCode == 64)
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test("--flag=value and --flag value read the same; switches turn settings on")
    func forms() throws {
        let spaced = try PushServiceConfiguration.load(arguments: ["--port", "9001", "--protect-metrics", "--embedded"], environment: [:])
        let joined = try PushServiceConfiguration.load(arguments: ["--port=9001", "--protect-metrics", "--embedded"], environment: [:])
        #expect(spaced.port == 9001 && joined.port == 9001)
        #expect(spaced.protectMetrics && spaced.embedded)
    }

    @Test("the derived collapse id: on by default, off by --no-derived-collapse-id or outbox.derive_collapse_id false")
    func derivedCollapseIDSetting() throws {
        #expect(try PushServiceConfiguration.load(arguments: [], environment: [:]).derivesCollapseID)
        #expect(try !PushServiceConfiguration.load(arguments: ["--no-derived-collapse-id"], environment: [:]).derivesCollapseID)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("push-config-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(#"{"outbox": {"derive_collapse_id": false}}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try !PushServiceConfiguration.load(arguments: ["--config", file], environment: [:]).derivesCollapseID)
        try Data(#"{"outbox": {"derive_collapse_id": true}}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:]).derivesCollapseID)
    }

    @Test("--help lists the options from the same list the parser reads, without the refused secret options")
    func help() {
        let usage = PushServiceConfiguration.usage
        for option in PushServiceConfiguration.options where option.isListed {
            #expect(usage.contains("--\(option.name)"), "\(option.name)")
        }
        #expect(usage.contains("--api-key-file <file>"))
        #expect(usage.contains("--apns-password-file <file>"))
        #expect(!usage.contains("--api-key <"))
        #expect(!usage.contains("--apns-password <"))
    }
}
