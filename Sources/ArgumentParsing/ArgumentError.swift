/// A command line the parser refuses: what is wrong, and (for secrets) what to do instead.
public struct ArgumentError: Error, Equatable, CustomStringConvertible {
    /// One line saying what is wrong, naming the option.
    public let message: String
    /// What to do instead, when there is something specific (the file option or variable for a secret).
    public let hint: String?

    /// An error with `message` and an optional `hint`.
    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    /// The message, with the hint in parentheses when there is one.
    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }

    /// The error for a secret given as an option value.
    static func secret(_ option: String, alternative: String) -> ArgumentError {
        ArgumentError("\(option) is refused: secrets are never taken as option values", hint: "use \(alternative)")
    }
}
