/// Process exit codes, following sysexits(3) where one fits.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let rejected: Int32 = 2
    static let usage: Int32 = 64
    static let unavailable: Int32 = 69
    static let authRefused: Int32 = 77
    static let config: Int32 = 78
}

/// A failure that ends the command: one line on stderr, with a hint, and an exit code.
struct CLIError: Error {
    let code: Int32
    let message: String
    let hint: String?

    init(_ code: Int32, _ message: String, hint: String? = nil) {
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
