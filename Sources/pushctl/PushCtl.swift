import ArgumentParsing
import Foundation

/// The `pushctl` entry point: finds the command, parses its arguments and maps errors to exit codes.
enum PushCtl {
    static let version = ProgramVersion.current

    static var commands: [CommandEntry] {
        [
            .leaf(SendCommand()),
            .group("pushes", "Inspect sent pushes.", [ServiceCall.pushesGet]),
            .group("devices", "Register, remove and list devices.", [ServiceCall.devicesAdd, .devicesRemove, .devicesList]),
            .group("users", "Create, update and show user profiles.", [ServiceCall.usersPut, .usersGet]),
            .group("drop", "Report, cancel and inspect profile drops.", [ServiceCall.dropReport, .dropCancel, .dropStatus]),
            .group(
                "mate-requests", "List, accept and decline mate requests.",
                [ServiceCall.mateRequestsList, .mateRequestAccept, .mateRequestDecline]),
            .group("apps", "List the apps push-server pushes for.", [ServiceCall.appsList]),
            .group(
                "webhooks", "Register, remove and inspect outcome webhooks.",
                [ServiceCall.webhooksAdd, .webhooksList, .webhooksRemove, .webhooksDeliveries]),
            .group(
                "channels", "Create, list, delete and reconcile broadcast channels.",
                [ServiceCall.channelsAdd, .channelsList, .channelsRemove, .channelsApple, .channelsReconcile]),
            .leaf(ServiceCall.broadcast),
            .leaf(StatusCommand()),
            .leaf(ServiceCall.reload),
            .leaf(VersionCommand()),
            .leaf(MockAPNSCommand()),
            .leaf(CompletionCommand()),
        ]
    }

    static var help: CommandHelp {
        CommandHelp(
            overview: "Command line for the SniffMeet push service, direct APNs sends and the mock APNs server.",
            usage: ["pushctl <command> [options]", "pushctl <command> --help"],
            subcommands: commands.map { ($0.name, $0.summary) },
            examples: [
                "pushctl mock-apns --port 2197 --write-credentials ./mock-creds",
                "pushctl send --direct --cert ./mock-creds/client.p12 --password-file ./mock-creds/client.p12.password \\",
                "    --host 127.0.0.1 --port 2197 --ca ./mock-creds/ca.pem --token <64 hex> --title Hi --body Woof",
                "pushctl send --user alice --title 'New mate request' --wait",
                "pushctl status --output yaml",
                "source <(pushctl completion bash)   # or: pushctl completion zsh > ~/.zfunc/_pushctl",
            ])
    }

    /// Runs `arguments` (without the program name) and returns the exit code.
    static func main(_ arguments: [String]) async -> ExitCode {
        do {
            return try await dispatch(arguments)
        } catch let error as CLIError {
            Console.err(error.line)
            return error.code
        } catch {
            Console.err(CLIError(ExitCode.failure, "\(error)", hint: "rerun with --help to check the options").line)
            return ExitCode.failure
        }
    }

    private static func dispatch(_ arguments: [String]) async throws -> ExitCode {
        guard let first = arguments.first else {
            Console.err(help.render())
            return ExitCode.usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            Console.out(help.render())
            return ExitCode.ok
        }
        if first == "--version" { return try await VersionCommand().run(ParsedArguments.parse([], options: [], command: "version")) }
        guard let entry = commands.first(where: { $0.name == first }) else {
            throw CLIError(ExitCode.usage, "unknown command '\(first)'", hint: "run 'pushctl --help' for the list")
        }
        let rest = Array(arguments.dropFirst())
        switch entry {
        case .leaf(let command):
            return try await run(command, rest)
        case .group(let group):
            guard let sub = rest.first, !sub.hasPrefix("-") else {
                if rest.first == "--help" || rest.first == "-h" {
                    Console.out(group.help.render())
                    return ExitCode.ok
                }
                throw CLIError(
                    ExitCode.usage, "'\(group.name)' needs a subcommand",
                    hint: "run 'pushctl \(group.name) --help'")
            }
            let leafName = group.name + " " + sub
            guard let command = group.children.first(where: { $0.name == leafName || aliases(of: $0.name).contains(leafName) }) else {
                throw CLIError(
                    ExitCode.usage, "unknown subcommand '\(sub)' of '\(group.name)'",
                    hint: "run 'pushctl \(group.name) --help'")
            }
            return try await run(command, Array(rest.dropFirst()))
        }
    }

    private static func aliases(of name: String) -> [String] {
        if name.hasSuffix(" rm") { return [name.dropLast(2) + "remove"] }
        if name.hasSuffix(" ls") { return [name.dropLast(2) + "list"] }
        return []
    }

    private static func run(_ command: any Command, _ arguments: [String]) async throws -> ExitCode {
        let parsed = try ParsedArguments.parse(arguments, options: command.help.options, command: command.name)
        if parsed.wantsHelp {
            Console.out(command.help.render())
            return ExitCode.ok
        }
        return try await command.run(parsed)
    }
}
