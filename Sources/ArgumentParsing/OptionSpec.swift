/// One option a program (or one of its commands) accepts, as the parser reads it and help shows it.
///
/// The grammar is the same for every program of the package: `--name value`, `--name=value`, `--switch`
/// (a switch takes no value), a declared one-letter alias (`-n value`), `-h`/`--help`, `--` to end the
/// options, and positionals. Secrets are never option values: an option that took one is declared with
/// ``refused(_:instead:)`` and fails, naming where the secret goes instead (a `--…-file` option or an
/// environment variable), and a URL option whose URL may carry a password refuses one
/// (``url(_:_:_:passwordFrom:)``).
public struct OptionSpec: Sendable {
    /// How the parser treats secrets given to this option.
    public enum SecretRule: Sendable, Equatable {
        /// The value is no secret.
        case none
        /// The option must not be used: it took a secret. Giving it is an error naming `alternative`.
        case refused(alternative: String)
        /// The value is a URL that must not hold a password; one that does is refused, naming `alternative`.
        case urlWithoutPassword(alternative: String)
    }

    /// The long name without dashes, e.g. `title`.
    public let name: String
    /// A one-letter alias (`-n`), if any.
    public var short: Character?
    /// The value's placeholder, or nil for a switch.
    public let value: String?
    /// One line of help (wrapped when shown).
    public let help: String
    /// Whether the option may be given more than once (otherwise a second one is an error).
    public var repeatable = false
    /// The values the option takes, when it takes one of a fixed few (checked by the parser, offered by
    /// shell completion).
    public var choices: [String] = []
    /// How secrets given to it are refused.
    public var secret: SecretRule = .none

    /// An option with all its parts; the factories below are shorter.
    public init(
        name: String, short: Character? = nil, value: String?, help: String, repeatable: Bool = false,
        choices: [String] = [], secret: SecretRule = .none
    ) {
        self.name = name
        self.short = short
        self.value = value
        self.help = help
        self.repeatable = repeatable
        self.choices = choices
        self.secret = secret
    }

    /// A switch: present or not, never with a value.
    public static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help)
    }

    /// An option taking a value shown as `placeholder`.
    public static func value(
        _ name: String, _ placeholder: String, _ help: String, short: Character? = nil, repeatable: Bool = false
    ) -> OptionSpec {
        OptionSpec(name: name, short: short, value: placeholder, help: help, repeatable: repeatable)
    }

    /// An option taking one of `choices`; its placeholder lists them.
    public static func choice(_ name: String, _ choices: [String], _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: choices.joined(separator: "|"), help: help, choices: choices)
    }

    /// An option taking a URL (or a path) that must not hold a password: `alternative` names where a URL
    /// with one goes instead (an environment variable, a file).
    public static func url(_ name: String, _ placeholder: String, _ help: String, passwordFrom alternative: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, secret: .urlWithoutPassword(alternative: alternative))
    }

    /// An option that is not taken because it would carry a secret; `alternative` names what to use
    /// instead. Help does not list it.
    public static func refused(_ name: String, instead alternative: String) -> OptionSpec {
        OptionSpec(name: name, value: "secret", help: "", secret: .refused(alternative: alternative))
    }

    /// False for refused options, which help and completion leave out.
    public var isListed: Bool {
        if case .refused = secret { return false }
        return true
    }
}
