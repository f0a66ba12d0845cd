import Testing

@Suite("pushctl help and usage")
struct HelpTests {
    static let commands: [[String]] = [
        [], ["send"], ["devices"], ["devices", "add"], ["devices", "rm"], ["devices", "ls"], ["users"], ["users", "put"],
        ["users", "get"], ["drop"], ["drop", "report"], ["drop", "cancel"], ["drop", "status"], ["mate-requests"],
        ["mate-requests", "ls"], ["mate-requests", "accept"], ["mate-requests", "decline"], ["status"], ["version"],
        ["mock-apns"], ["pushes"], ["pushes", "get"], ["completion"], ["apps"], ["apps", "ls"], ["reload"],
    ]

    @Test("--help prints OVERVIEW, USAGE, OPTIONS and EXAMPLES and exits 0", arguments: commands)
    func help(_ command: [String]) throws {
        let result = try PushCtlProcess.run(command + ["--help"])
        #expect(result.status == 0)
        for section in ["OVERVIEW:", "USAGE:", "OPTIONS:", "EXAMPLES:"] {
            #expect(result.stdout.contains(section), "\(command) help lacks \(section)")
        }
        #expect(result.stdout.contains("pushctl"))
        #expect(result.stderr.isEmpty)
    }

    @Test("send --help lists the payload flags and never a password flag")
    func sendHelp() throws {
        let result = try PushCtlProcess.run(["send", "--help"])
        for flag in [
            "--title", "--body", "--data", "--payload", "--push-type", "--collapse-id", "--tokens-file",
            "--direct", "--password-file", "--p8", "--key-id", "--team-id",
        ] {
            #expect(result.stdout.contains(flag))
        }
        #expect(!result.stdout.contains("--password <"))
    }

    @Test(
        "usage errors exit 64 with one line on stderr",
        arguments: [
            ["send", "--bogus"], ["frobnicate"], ["devices"], ["devices", "zap"], ["users", "get"],
            ["devices", "ls"], ["send", "--direct", "--token"], ["send", "--direct", "--password", "x"],
            ["users", "get", "a", "b"], ["mock-apns", "--port", "lots"], ["mock-apns", "--rate-429", "2"],
            ["mock-apns", "--latency-ms", "5", "--jitter-ms", "5"],
        ])
    func usageErrors(_ arguments: [String]) throws {
        let result = try PushCtlProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(result.stderr.hasPrefix("pushctl: error: "))
        #expect(result.stderr.contains("hint:"))
    }

    @Test(
        "secrets are never option values: --password, --pass and --api-key are refused, naming where the secret goes",
        arguments: [
            (["send", "--direct", "--password", "x"], "--password-file FILE or the PUSHCTL_P12_PASSWORD environment variable"),
            (["status", "--pass=hunter2"], "--password-file FILE or the PUSHCTL_P12_PASSWORD environment variable"),
            (["users", "get", "a", "--api-key", "k"], "--api-key-file FILE or the PUSHCTL_API_KEY environment variable"),
        ])
    func secretOptionsRefused(_ arguments: [String], alternative: String) throws {
        let result = try PushCtlProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("secrets are never taken as option values"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: use \(alternative)"), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test("--flag=value, --flag value and --switch are one grammar; a switch with a value and a missing value are usage errors")
    func grammar() throws {
        let spaced = try PushCtlProcess.run(["version", "--output", "json"])
        let joined = try PushCtlProcess.run(["version", "--output=json"])
        #expect(spaced.status == 0 && joined.status == 0)
        #expect(spaced.stdout == joined.stdout)
        let switchValue = try PushCtlProcess.run(["version", "--json=yes"])
        #expect(switchValue.status == 64)
        #expect(switchValue.stderr.contains("option '--json' takes no value"))
        let missing = try PushCtlProcess.run(["version", "--output"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("option '--output' needs a value"))
    }

    @Test(
        "send refuses an option of the other mode, and content flags beside --payload, naming the option",
        arguments: [
            (["send", "--user", "a", "--title", "x", "--cert", "c.p12"], "--cert only applies with --direct"),
            (["send", "--user", "a", "--title", "x", "--proxy", "http://h:1"], "--proxy only applies with --direct"),
            (["send", "--user", "a", "--payload", "{}", "--title", "x"], "--payload cannot be combined with --title"),
            (["send", "--user", "a", "--payload", "{}", "--data", "k=1"], "--payload cannot be combined with --data"),
        ])
    func sendModes(_ arguments: [String], message: String) throws {
        let result = try PushCtlProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "pushctl: error: \(message) (hint: run 'pushctl send --help')\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("no arguments prints help on stderr and exits 64")
    func noArguments() throws {
        let result = try PushCtlProcess.run([])
        #expect(result.status == 64)
        #expect(result.stderr.contains("USAGE:"))
    }

    @Test("version")
    func version() throws {
        let result = try PushCtlProcess.run(["version", "--json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"version\""))
    }
}
