/// A value known by its raw value alone: two are equal, hash alike and print alike when their raw values
/// are, whatever else they hold (a precomputed field, or a known case against `unknown` with the same
/// spelling).
public protocol RawValueIdentified: RawRepresentable, Hashable, CustomStringConvertible where RawValue: Hashable {}

extension RawValueIdentified {
    /// Equal when the raw values are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the raw value.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The raw value as text.
    public var description: String {
        "\(rawValue)"
    }
}
