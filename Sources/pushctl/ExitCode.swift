/// Process exit codes, following sysexits(3) where one fits.
enum ExitCode: Int32, Sendable {
    case ok = 0
    case failure = 1
    /// A notification was rejected, failed or expired.
    case rejected = 2
    case usage = 64
    case unavailable = 69
    case authRefused = 77
    case config = 78
}

/// A failure that ends the command: one line on stderr, with a hint, and an exit code.
struct CLIError: Error {
    let code: ExitCode
    let message: String
    let hint: String?

    init(_ code: ExitCode, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// A usage error pointing at the command's help.
    static func usage(_ message: String, command: String) -> CLIError {
        CLIError(ExitCode.usage, message, hint: "run 'pushctl \(command) --help'")
    }

    /// The single stderr line.
    var line: String {
        var text = "pushctl: error: \(message)"
        if let hint { text += " (hint: \(hint))" }
        return text
    }
}
