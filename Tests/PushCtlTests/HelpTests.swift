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
