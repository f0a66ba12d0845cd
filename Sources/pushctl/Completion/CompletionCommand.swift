import ArgumentParsing
import Foundation

/// `pushctl completion bash|zsh`: prints a completion script built from the same command table as `--help`.
struct CompletionCommand: Command {
    let name = "completion"
    let summary = "Print a bash or zsh completion script."
    let help = CommandHelp(
        overview: "Print a shell completion script for pushctl's commands, subcommands, options and their values, "
            + "built from the same table as --help.",
        usage: ["pushctl completion bash|zsh"],
        arguments: [("<bash|zsh>", "The shell.")],
        examples: [
            "source <(pushctl completion bash)                 # this bash session",
            "pushctl completion bash > /etc/bash_completion.d/pushctl",
            "pushctl completion zsh > \"${fpath[1]}/_pushctl\"     # zsh, with compinit",
        ])

    func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let shell = try arguments.positionals(["shell"], command: name)[0]
        switch shell {
        case "bash": Console.outRaw(BashCompletion.script(PushCtl.commands))
        case "zsh": Console.outRaw(ZshCompletion.script(PushCtl.commands))
        default: throw CLIError.usage("unknown shell '\(shell)'; pushctl completes in bash and zsh", command: name)
        }
        return ExitCode.ok
    }
}

/// How shell completion offers an option's value or a positional argument.
enum CompletionValue: Equatable {
    /// A boolean flag: no value.
    case none
    /// Free text: nothing to offer.
    case text
    /// A file path.
    case file
    /// A directory path.
    case directory
    /// One of these words.
    case words([String])

    /// The kind for `spec`: its choices, else guessed from its placeholder (`file`, `file.p12`, `pem`, `dir`).
    init(_ spec: OptionSpec) {
        guard let placeholder = spec.value else {
            self = .none
            return
        }
        if !spec.choices.isEmpty {
            self = .words(spec.choices)
        } else if placeholder == "dir" {
            self = .directory
        } else if placeholder.hasPrefix("file") || placeholder == "pem" {
            self = .file
        } else {
            self = .text
        }
    }

    /// The kind for a positional argument named like `<bash|zsh>` (words) or `<id>` (text).
    init(argument: String) {
        let bare = argument.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
        self = bare.contains("|") ? .words(bare.split(separator: "|").map(String.init)) : .text
    }
}

/// A leaf command as the completion scripts see it: the words that reach it and what follows them.
struct CompletionLeaf {
    /// `["devices", "add"]` or `["send"]`.
    let path: [String]
    let options: [OptionSpec]
    let arguments: [CompletionValue]

    /// Every leaf of `commands`, in table order.
    static func all(_ commands: [CommandEntry]) -> [CompletionLeaf] {
        commands.flatMap { entry -> [CompletionLeaf] in
            switch entry {
            case .leaf(let command): [CompletionLeaf(command)]
            case .group(let group): group.children.map(CompletionLeaf.init)
            }
        }
    }

    init(_ command: any Command) {
        let help = command.help
        path = command.name.split(separator: " ").map(String.init)
        options = help.options + [.flag("help", "Show this help.")]
        arguments = help.arguments.map { CompletionValue(argument: $0.0) }
    }
}
