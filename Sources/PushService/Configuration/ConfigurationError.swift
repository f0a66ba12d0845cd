/// Why `push-server` cannot start; `exitCode` is 78 (EX_CONFIG) for bad configuration, 64 for bad usage.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// One line saying what is wrong and where.
    public var message: String
    /// The process exit code to use.
    public var exitCode: Int32

    /// A configuration problem (exit 78).
    public init(_ message: String, exitCode: Int32 = 78) {
        self.message = message
        self.exitCode = exitCode
    }

    /// A usage problem (exit 64).
    public static func usage(_ message: String) -> ConfigurationError {
        ConfigurationError(message, exitCode: 64)
    }

    /// The message.
    public var description: String { message }
}
