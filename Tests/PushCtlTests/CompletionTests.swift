import Foundation
import Testing

/// `pushctl completion bash|zsh`: the scripts are sourced in real shells and asked for completions.
@Suite("pushctl shell completion")
struct CompletionTests {
    /// A scratch directory holding the bash and zsh scripts as pushctl printed them, plus a few paths to complete.
    final class Scripts: Sendable {
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushctl-completion-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("credsdir"), withIntermediateDirectories: true)
            try Data("ab\n".utf8).write(to: directory.appendingPathComponent("tokens.txt"))
            for shell in ["bash", "zsh"] {
                let result = try PushCtlProcess.run(["completion", shell])
                guard result.status == 0 else { throw CompletionError.failed(result.stderr) }
                try Data(result.stdout.utf8).write(to: directory.appendingPathComponent("pushctl.\(shell)"))
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// What bash's `_pushctl` offers for the command line `words`, the cursor in the last word.
        func bash(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let script =
                "source ./pushctl.bash; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _pushctl; "
                + #"printf '%s\n' "${COMPREPLY[@]}""#
            let result = try Shell.run("/bin/bash", ["-c", script], in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
    }

    enum CompletionError: Error {
        case failed(String)
    }

    static let scripts = Result { try Scripts() }
    static let groups: [[String]] = [["devices"], ["users"], ["drop"], ["mate-requests"], ["pushes"]]

    @Test(
        "bash offers commands, subcommands, options, choices and paths",
        arguments: [
            (["pushctl", "dev"], ["devices"]),
            (["pushctl", "com"], ["completion"]),
            (["pushctl", "devices", ""], ["add", "rm", "ls", "--help"]),
            (["pushctl", "devices", "ls", "--output", ""], ["table", "json", "yaml"]),
            (["pushctl", "devices", "ls", "--output", "=", "y"], ["yaml"]),
            (["pushctl", "send", "--push-type", "vo"], ["voip"]),
            (["pushctl", "mate-requests", "ls", "--role", ""], ["recipient", "sender", "any"]),
            (["pushctl", "devices", "add", "--environment", "d"], ["development"]),
            (["pushctl", "completion", ""], ["bash", "zsh"]),
            (["pushctl", "send", "--tokens-file", "tok"], ["tokens.txt"]),
            (["pushctl", "mock-apns", "--write-credentials", ""], ["credsdir"]),
            (["pushctl", "users", "get", ""], []),
            (["pushctl", "devices", "rm", "--url", ""], []),
            (["pushctl", "status", "--js"], ["--json"]),
        ])
    func bash(_ words: [String], _ expected: [String]) throws {
        let offered = try Self.scripts.get().bash(words)
        #expect(offered.sorted() == expected.sorted(), "\(words)")
    }

    @Test("bash offers every command --help lists, and every option of each command's --help", arguments: HelpTests.commands)
    func sameTableAsHelp(_ command: [String]) throws {
        let help = try PushCtlProcess.run(command + ["--help"]).stdout
        let scripts = try Self.scripts.get()
        if command.isEmpty || Self.groups.contains(command) {
            let listed = Self.section("SUBCOMMANDS:", of: help)
            let offered = try scripts.bash(["pushctl"] + command + [""])
            #expect(!listed.isEmpty)
            #expect(Set(listed).isSubset(of: Set(offered)), "\(command): \(listed) vs \(offered)")
        } else {
            let listed = Self.section("OPTIONS:", of: help).filter { $0.hasPrefix("--") }
            let offered = try scripts.bash(["pushctl"] + command + ["--"])
            #expect(Set(listed + ["--help"]) == Set(offered), "\(command)")
        }
    }

    @Test("the zsh script passes zsh -n, and registers _pushctl with compinit")
    func zsh() throws {
        let scripts = try Self.scripts.get()
        let syntax = try Shell.run("/usr/bin/zsh", ["-n", "pushctl.zsh"], in: scripts.directory)
        #expect(syntax.status == 0, "\(syntax.stderr)")
        let loaded = try Shell.run(
            "/usr/bin/zsh",
            [
                "-f", "-c",
                "autoload -Uz compinit && compinit -u -d ./zcompdump "
                    + "&& source ./pushctl.zsh && print -r -- $_comps[pushctl] && whence -w _pushctl",
            ],
            in: scripts.directory)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stdout == "_pushctl\n_pushctl: function\n", "\(loaded.stdout) \(loaded.stderr)")
        let text = try String(contentsOf: scripts.directory.appendingPathComponent("pushctl.zsh"), encoding: .utf8)
        for expected in [
            "'--output[table (default), json or yaml.]:table|json|yaml:(table json yaml)'",
            "'*--token[Device token. (repeatable)]:hex: '", "'--write-credentials[", ":dir:_files -/'",
            "'devices:Register, remove and list devices.'", "'1:argument 1:(bash zsh)'",
        ] {
            #expect(text.contains(expected), "\(expected)")
        }
    }

    @Test("an unknown shell is a usage error")
    func unknownShell() throws {
        let result = try PushCtlProcess.run(["completion", "fish"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("bash and zsh"))
    }

    /// The first word of each entry of a help section (`  name   text` lines up to the next blank line).
    static func section(_ title: String, of help: String) -> [String] {
        guard let start = help.range(of: title + "\n") else { return [] }
        var names: [String] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            if line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first {
                names.append(String(word).trimmingCharacters(in: CharacterSet(charactersIn: ",")))
            }
        }
        return names
    }
}

/// Runs a program to completion and captures its output (for the shells the completion tests drive).
enum Shell {
    static func run(_ program: String, _ arguments: [String], in directory: URL) throws -> PushCtlProcess.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return PushCtlProcess.Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
