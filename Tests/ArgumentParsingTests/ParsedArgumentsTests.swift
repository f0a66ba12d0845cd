import ArgumentParsing
import Foundation
import Testing

@Suite("The command-line grammar and secret policy every executable shares")
struct ParsedArgumentsTests {
    static let options: [OptionSpec] = [
        .value("port", "n", "listen port"),
        .value("count", "n", "how many", short: "n"),
        .value("tag", "text", "a tag", repeatable: true),
        .flag("embedded", "run embedded"),
        .choice("env", ["production", "development"], "which APNs"),
        .url("database", "url", "the store", passwordFrom: "PUSH_DATABASE"),
        .value("password-file", "file", "the password's file"),
        .refused("password", instead: "--password-file FILE or PUSH_PASSWORD"),
    ]

    static func parse(_ arguments: [String]) throws(ArgumentError) -> ParsedArguments {
        try ParsedArguments(arguments, options: options)
    }

    static func error(_ arguments: [String]) -> ArgumentError? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test("--flag value, --flag=value, a switch, a one-letter alias, repeats, -- and positionals")
    func grammar() throws {
        let parsed = try Self.parse([
            "--port", "8080", "--env=development", "--embedded", "-n", "-5", "--tag", "a", "--tag=b=c", "first", "--", "--port",
        ])
        #expect(parsed.value("port") == "8080")
        #expect(try parsed.int("port") == 8080)
        #expect(parsed.value("env") == "development")
        #expect(parsed.has("embedded"))
        #expect(try parsed.int("count") == -5)
        #expect(parsed.all("tag") == ["a", "b=c"])
        #expect(parsed.positionals == ["first", "--port"])
        #expect(!parsed.wantsHelp)
        #expect(try Self.parse(["-h"]).wantsHelp)
        #expect(try Self.parse(["--help"]).wantsHelp)
        #expect(try Self.parse(["--count", "1_000"]).int("count") == 1000)
    }

    @Test(
        "errors name the option: unknown, missing value, value on a switch, repeated, outside the choices, not a number",
        arguments: [
            (["--bogus"], "unknown option '--bogus'"),
            (["-x"], "unknown option '-x'"),
            (["--bogus=1"], "unknown option '--bogus'"),
            (["--port"], "option '--port' needs a value <n>"),
            (["--embedded=yes"], "option '--embedded' takes no value"),
            (["--port", "1", "--port=2"], "option '--port' given more than once"),
            (["--embedded", "--embedded"], "option '--embedded' given more than once"),
            (["--env", "staging"], "option '--env' must be one of production, development, got 'staging'"),
        ])
    func errors(_ arguments: [String], message: String) {
        #expect(Self.error(arguments)?.message == message)
    }

    @Test("typed reads and positional counts say what is wrong")
    func typedReads() throws {
        let parsed = try Self.parse(["--port", "x", "extra"])
        #expect(throws: ArgumentError("'--port' needs a whole number, got 'x'")) { try parsed.int("port") }
        #expect(throws: ArgumentError("unexpected argument 'extra'")) { try parsed.positionals([]) }
        #expect(throws: ArgumentError("missing argument <second>")) { try parsed.positionals(["first", "second"]) }
        #expect(throws: ArgumentError("missing required option '--count'")) { try parsed.required("count") }
    }

    @Test("a refused secret option fails whatever its value, naming the alternative and never the secret")
    func refusedSecret() {
        for arguments in [["--password", "hunter2"], ["--password=hunter2"], ["--password"]] {
            let error = Self.error(arguments)
            #expect(error?.message == "--password is refused: secrets are never taken as option values")
            #expect(error?.hint == "use --password-file FILE or PUSH_PASSWORD")
            #expect(error?.description.contains("hunter2") == false)
        }
    }

    @Test("a URL option refuses a URL that holds a password and takes one without")
    func urlPasswords() throws {
        let refused = Self.error(["--database", "postgres://push:hunter2@db:5432/push"])
        #expect(refused?.message.hasPrefix("--database is refused: its URL holds a password") == true)
        #expect(refused?.hint == "use PUSH_DATABASE")
        #expect(refused?.description.contains("hunter2") == false)
        for url in ["postgres://push@db:5432/push", "/var/lib/push.sqlite", "http://proxy:3128", "postgres://db/push?user=a:b@c"] {
            #expect(try Self.parse(["--database", url]).value("database") == url)
        }
        #expect(SecretInput.urlHoldsPassword("socks5://u:p@h:1"))
        #expect(!SecretInput.urlHoldsPassword("socks5://u@h:1"))
    }

    @Test("a secret comes from its file option (without the line break) or else from the variable")
    func secretInput() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "s3cret\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        let fromFile = try SecretInput.read(
            try Self.parse(["--password-file", path]), fileOption: "password-file", variable: "PUSH_PASSWORD",
            environment: ["PUSH_PASSWORD": "env"])
        #expect(fromFile == SecretInput.Found(value: "s3cret", source: "--password-file \(path)"))
        let fromVariable = try SecretInput.read(
            try Self.parse([]), fileOption: "password-file", variable: "PUSH_PASSWORD", environment: ["PUSH_PASSWORD": "env"])
        #expect(fromVariable == SecretInput.Found(value: "env", source: "PUSH_PASSWORD"))
        #expect(try SecretInput.read(try Self.parse([]), fileOption: "password-file", variable: "PUSH_PASSWORD", environment: [:]) == nil)
        #expect(throws: ArgumentError.self) {
            try SecretInput.read(
                try Self.parse(["--password-file", path + ".missing"]), fileOption: "password-file", variable: nil, environment: [:])
        }
    }

    @Test("help lists each option with its alias and placeholder, leaves refused ones out and wraps long text")
    func help() {
        let lines = OptionHelp.lines(Self.options + [.value("long", "x", String(repeating: "word ", count: 40))], width: 80)
        #expect(lines.contains { $0.hasPrefix("  -n, --count <n>") })
        #expect(lines.contains { $0.hasPrefix("  --embedded ") })
        #expect(!lines.contains { $0.contains("--password <") })
        #expect(lines.last?.hasPrefix("  -h, --help") == true)
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test("the APNs options are named alike in every program, under its prefix; a sentence help keeps all but the case")
    func apnsOptions() {
        #expect(OptionSpec.apnsTokenKey(prefix: "apns-").map(\.name) == ["apns-p8", "apns-key-id", "apns-team-id"])
        #expect(OptionSpec.apnsEndpoint(prefix: "").map(\.name) == ["host", "port", "ca"])
        let port = OptionSpec.value("port", "n", "APNs port override", short: "p", repeatable: true).sentence
        #expect(port.help == "APNs port override." && port.name == "port" && port.value == "n")
        #expect(port.short == "p" && port.repeatable)
        #expect(OptionSpec.value("key-id", "id", "the key id").sentence.help == "The key id.")
        #expect(OptionSpec.value("ca", "pem", "Already one.").sentence.help == "Already one.")
    }
}
