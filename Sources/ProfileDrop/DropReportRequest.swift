import Foundation
public import PushStore

/// One phone's report of its peer, as the store decides it (the drop condition was checked before).
public struct DropReportRequest: Sendable {
    /// The reporting user.
    public var reporterID: String
    /// The user they reported.
    public var peerID: String
    /// The id a new pending drop gets, if this report creates one.
    public var newDropID: String
    /// How long a pending drop waits for the peer, and how long a match answers repeats.
    public var window: Duration
    /// The outbox rows that push a new match's two mate requests. The store calls it inside the transaction
    /// that stores the match, so it must not do I/O: read what it needs (devices, cards) beforehand.
    public var pushes: @Sendable (_ drop: DropRecord, _ requests: [MateRequestRecord]) -> [OutboxItem]
    /// For a store that reads the two users with their active devices inside the report's transaction
    /// (`DropRepository.readsUsersInDropTransaction`): `pushes` made from what it read, called before the
    /// rules read or write anything else; what it throws (an unknown user) undoes the report. nil: `pushes`
    /// was made from a read before the transaction.
    public var pushesFromUsers: PushesFromUsers?

    /// What `pushesFromUsers` is: the users found by id, with their active devices by user id.
    public typealias PushesFromUsers =
        @Sendable (_ users: [String: UserRecord], _ devices: [String: [DeviceRecord]]) throws
        -> @Sendable (_ drop: DropRecord, _ requests: [MateRequestRecord]) -> [OutboxItem]

    /// A report of `peerID` by `reporterID`.
    public init(
        reporterID: String, peerID: String, newDropID: String, window: Duration,
        pushes: @escaping @Sendable (_ drop: DropRecord, _ requests: [MateRequestRecord]) -> [OutboxItem]
    ) {
        self.reporterID = reporterID
        self.peerID = peerID
        self.newDropID = newDropID
        self.window = window
        self.pushes = pushes
        self.pushesFromUsers = nil
    }

    /// A report of `peerID` by `reporterID` whose users and devices the store reads in its transaction
    /// (`pushesFromUsers`).
    public init(
        reporterID: String, peerID: String, newDropID: String, window: Duration,
        pushesFromUsers: @escaping PushesFromUsers
    ) {
        self.init(reporterID: reporterID, peerID: peerID, newDropID: newDropID, window: window) { _, _ in [] }
        self.pushesFromUsers = pushesFromUsers
    }
}
