/// What a store's claim hands out with each row it claims, so that the row's completion finds the claim
/// again without looking the row up by its id: the store's own keys, opaque to everyone else.
///
/// The PostgreSQL store keys a row by `sequence` and claims rows that have no outcome yet by the range
/// (`range`, the first `sequence` of the range the claim took; nil when the row was claimed on its own).
/// A row no claim handed out (read back, or built by the caller) carries the empty receipt.
/// Its completion writes the outcome of a row with a receipt straight by these keys, fenced as always by
/// the claim's attempt and the range's lease; a row without one (an outcome built from an id alone) is
/// looked up first. Other stores neither hand out nor read receipts.
///
/// A receipt names where a row's claim is kept, not what the row is: receipts compare equal, so a claimed
/// row equals the same row read back (`OutboxItem` is `Equatable` by its values), empty receipt or not.
public struct OutboxReceipt: Sendable, Equatable, CustomStringConvertible {
    /// The row's key in the store (the notification's `seq`: its push's `lo` plus its position), or nil in the empty receipt.
    public var sequence: Int64?
    /// The key of the range the row was claimed with, or nil when it was claimed on its own.
    public var range: Int64?

    /// A receipt for the row `sequence`, claimed with the range `range` (nil: on its own); without
    /// arguments, the empty receipt.
    public init(sequence: Int64? = nil, range: Int64? = nil) {
        self.sequence = sequence
        self.range = range
    }

    /// The empty receipt: the store finds the row by its id.
    public static let none = OutboxReceipt()

    /// Always true: see the type's documentation.
    public static func == (lhs: OutboxReceipt, rhs: OutboxReceipt) -> Bool { true }

    /// `seq N`, `seq N in range L` or `none`, for logs and test failures.
    public var description: String {
        guard let sequence else { return "none" }
        return range.map { "seq \(sequence) in range \($0)" } ?? "seq \(sequence)"
    }
}
