/// Why a byte sequence is not a JSON document, and where the parser noticed.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in a short English phrase.
    public let message: String
    /// The zero-based byte offset into the input where the problem was found.
    public let offset: Int

    /// Creates an error for `message` at byte `offset`.
    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// `invalid JSON at byte N: message`.
    public var description: String {
        "invalid JSON at byte \(offset): \(message)"
    }
}
