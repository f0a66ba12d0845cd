/// A value given to APNSCore is malformed: which field, and what is wrong with it.
public struct APNSValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name of the offending field, e.g. `token`.
    public let field: String
    /// What is wrong, in a short English phrase.
    public let message: String

    /// Creates an error for `field` saying `message`.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String {
        "\(field): \(message)"
    }
}
