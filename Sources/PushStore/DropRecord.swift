public import Foundation

/// The state of a profile drop between two users.
public enum DropState: String, Sendable, CaseIterable, Hashable {
    /// One side reported; waiting for the other within the window.
    case pending
    /// Both sides reported: a mate request was made.
    case matched
    /// A user cancelled it while pending.
    case cancelled
    /// The window passed with only one side reporting.
    case expired
}

/// A stored profile drop.
public struct DropRecord: Sendable, Equatable {
    /// The drop id.
    public var id: String
    /// The user whose report created the drop.
    public var initiatorID: String
    /// The user the initiator reported.
    public var peerID: String
    /// The drop's state.
    public var state: DropState
    /// When the drop was created.
    public var createdAt: Date
    /// When a pending drop expires.
    public var expiresAt: Date
    /// When it matched, if it did.
    public var matchedAt: Date?
    /// When it was cancelled or expired, if it was.
    public var closedAt: Date?

    /// Creates a record (a new drop is `pending`).
    public init(
        id: String, initiatorID: String, peerID: String, state: DropState = .pending,
        createdAt: Date, expiresAt: Date, matchedAt: Date? = nil, closedAt: Date? = nil
    ) {
        self.id = id
        self.initiatorID = initiatorID
        self.peerID = peerID
        self.state = state
        self.createdAt = createdAt.storeNormalized
        self.expiresAt = expiresAt.storeNormalized
        self.matchedAt = matchedAt?.storeNormalized
        self.closedAt = closedAt?.storeNormalized
    }

    package func validate() throws(PushStoreError) {
        try StoreValidation.required(id, field: "drop id", max: 128)
        try StoreValidation.userID(initiatorID)
        try StoreValidation.userID(peerID)
    }
}
