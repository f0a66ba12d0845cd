public import Foundation
public import PushStore

/// The profile-drop flow: reports, matches, cancels, expiry and mate requests.
///
/// The rules (at most one pending drop per user, the peer's report matches, repeats are idempotent, a cancel
/// and a match are decided once) are enforced by the store (`DropRepository`, `DropRules`): each operation
/// is one transaction with its users locked, so they hold across every service instance sharing the store,
/// and a match is stored together with both mate requests and their outbox rows. This actor checks input,
/// reads what the pushes need beforehand (or has the store read it in the report's transaction) and counts outcomes; it keeps no engagement state of its own.
///
/// Users must have a profile (`UserRepository`) to report or be reported: the mate request carries the card,
/// so a drop with a card-less user could never be delivered; such reports throw `MatchError.unknownUser`.
public actor MatchService {
    /// The drop condition and window.
    public nonisolated let condition: DropCondition
    let drops: any DropRepository
    let mateRequests: any MateRequestRepository
    let users: any UserRepository
    let pushes: MateRequestPushes
    let clock: @Sendable () -> Date
    let makeID: @Sendable () -> String
    /// Called after a match or an answer queued outbox rows (e.g. to wake the outbox worker).
    let queued: @Sendable () -> Void
    /// Whether a report's users and devices are read in its drop transaction
    /// (`DropRepository.readsUsersInDropTransaction`, with `users` and `pushes.devices` of the same store).
    let usersInDropTransaction: Bool

    /// Counters for `/metrics` (this instance's operations).
    public internal(set) var metrics = MatchMetrics()

    /// Creates a service over the given repositories; `clock` and `makeID` are injectable for tests.
    public init(
        drops: any DropRepository, mateRequests: any MateRequestRepository, users: any UserRepository,
        pushes: MateRequestPushes, condition: DropCondition = .default,
        clock: @escaping @Sendable () -> Date = { Date() },
        makeID: @escaping @Sendable () -> String = { OutboxID.make() },
        queued: @escaping @Sendable () -> Void = {}
    ) {
        self.init(
            drops: drops, mateRequests: mateRequests, users: users, pushes: pushes, condition: condition, clock: clock,
            makeID: makeID, queued: queued, usersInDropTransaction: false)
    }

    private init(
        drops: any DropRepository, mateRequests: any MateRequestRepository, users: any UserRepository,
        pushes: MateRequestPushes, condition: DropCondition, clock: @escaping @Sendable () -> Date,
        makeID: @escaping @Sendable () -> String, queued: @escaping @Sendable () -> Void, usersInDropTransaction: Bool
    ) {
        self.usersInDropTransaction = usersInDropTransaction
        self.drops = drops
        self.mateRequests = mateRequests
        self.users = users
        self.pushes = pushes
        self.condition = condition
        self.clock = clock
        self.makeID = makeID
        self.queued = queued
    }

    /// Creates a service over one store's repositories, pushing only devices registered for `topic` when given.
    public init(
        repositories: PushRepositories, condition: DropCondition = .default, topic: String? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }, queued: @escaping @Sendable () -> Void = {}
    ) {
        self.init(
            drops: repositories.drops, mateRequests: repositories.mateRequests, users: repositories.users,
            pushes: MateRequestPushes(devices: repositories.devices, topic: topic), condition: condition,
            clock: clock, makeID: { OutboxID.make() }, queued: queued,
            usersInDropTransaction: repositories.drops.readsUsersInDropTransaction)
    }

    /// Handles `userID`'s phone seeing `peerID` at `distance` meters and, if measured, `direction`
    /// (Nearby Interaction coordinates, see `DropCondition`).
    ///
    /// Throws `MatchError` for a self-report, an invalid measurement or an unknown user; storage errors pass through.
    public func report(
        userID: String, peerID: String, distance: Double,
        direction: SIMD3<Double>? = nil
    ) async throws -> DropReport {
        do {
            let result = try await checkedReport(userID: userID, peerID: peerID, distance: distance, direction: direction)
            metrics.reports[result.outcome, default: 0] += 1
            return result
        } catch let error as MatchError {
            metrics.reports[.invalid, default: 0] += 1
            throw error
        } catch {
            metrics.reports[.failed, default: 0] += 1
            throw error
        }
    }

    private func checkedReport(
        userID: String, peerID: String, distance: Double,
        direction: SIMD3<Double>?
    ) async throws -> DropReport {
        guard userID != peerID else { throw MatchError.selfReport(userID: userID) }
        switch condition.evaluate(distance: distance, direction: direction) {
        case .invalid(let why): throw MatchError.invalidMeasurement(why)
        case .notMet(let why): return .conditionNotMet(why)
        case .met: break
        }
        let request: DropReportRequest
        let now: Date
        if usersInDropTransaction {
            // Both users' cards and devices read by the store in the report's transaction: one trip to it.
            now = clock()
            let pushes = pushes
            request = DropReportRequest(
                reporterID: userID, peerID: peerID, newDropID: makeID(), window: condition.window
            ) { users, devices in
                let (cards, recipients) = try Self.participants(userID, peerID, found: (users, devices), pushes)
                return Self.pushes(cards, recipients, at: now)
            }
        } else {
            // Both users' cards and devices in one read (one statement where the store holds both).
            let (cards, recipients) = try await participants(userID, peerID)
            now = clock()
            request = DropReportRequest(
                reporterID: userID, peerID: peerID, newDropID: makeID(), window: condition.window,
                pushes: Self.pushes(cards, recipients, at: now))
        }
        let (outcome, expired) = try await drops.report(request, now: now)
        metrics.expiries += expired.count
        switch outcome {
        case .pending(let drop): return .pending(drop)
        case .busy: return .busy
        case .matched(let drop, let requests):
            metrics.matches += 1
            queued()
            return .matched(drop, mateRequests: requests)
        case .alreadyMatched(let drop, let requests):
            return .matched(drop, mateRequests: requests)
        }
    }

    /// The user's current drop: the pending one engaging them, else their match of the last window, else nil.
    public func status(userID: String) async throws -> DropRecord? {
        let (drop, expired) = try await drops.current(userID: userID, now: clock(), window: condition.window)
        metrics.expiries += expired.count
        return drop
    }

    /// Both users' profile cards by user id, and where their mate requests go, in one read of the store;
    /// throws `MatchError.unknownUser` for the first one missing.
    func participants(_ first: String, _ second: String) async throws -> ([String: ProfileCard], MateRequestRecipients) {
        let found = try await users.users(ids: [first, second], withDevicesIn: pushes.devices, includeInvalidated: false)
        return try Self.participants(first, second, found: found, pushes)
    }

    /// Both users' profile cards and where their mate requests go, from `found`; throws
    /// `MatchError.unknownUser` for the first one missing.
    private static func participants(
        _ first: String, _ second: String, found: (users: [String: UserRecord], devices: [String: [DeviceRecord]]),
        _ pushes: MateRequestPushes
    ) throws -> ([String: ProfileCard], MateRequestRecipients) {
        guard let firstUser = found.users[first] else { throw MatchError.unknownUser(first) }
        guard let secondUser = found.users[second] else { throw MatchError.unknownUser(second) }
        return ([first: try firstUser.card, second: try secondUser.card], pushes.recipients(among: found.devices))
    }

    /// The rows pushing a match's mate requests, each with its sender's card, made at `now`.
    private static func pushes(
        _ cards: [String: ProfileCard], _ recipients: MateRequestRecipients, at now: Date
    ) -> @Sendable (DropRecord, [MateRequestRecord]) -> [OutboxItem] {
        { _, requests in
            recipients.rows(
                for: requests.compactMap { request in
                    cards[request.senderID].map { MateRequestNotice(request: request, senderCard: $0) }
                }, at: now)
        }
    }
}
