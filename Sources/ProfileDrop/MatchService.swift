import Foundation
import PushStore
import PushSync

/// Owns the profile-drop flow: who is engaged with whom, matches, cancels, expiry and mate requests.
///
/// All engagement state lives in this actor and every operation that reads or changes it runs through one
/// FIFO gate (`MatchService+Gate.swift`), so an operation's storage awaits cannot interleave with another's:
/// 1,000 concurrent reports toward one user pair them exactly once, and a cancel racing a match is decided
/// in one order. A match is acknowledged only after the mate requests, their outbox rows and the drop's
/// `matched` state are stored, in that order; a crash in between is finished on `restore()`.
///
/// Users must have a profile (`UserRepository`) to report or be reported: the mate request carries the card,
/// so a drop with a card-less user could never be delivered; such reports throw `MatchError.unknownUser`.
/// Call `restore()` once before serving so pending drops of the previous run keep their users engaged.
public actor MatchService {
    /// The drop condition and window.
    public nonisolated let condition: DropCondition
    let drops: any DropRepository
    let mateRequests: any MateRequestRepository
    let users: any UserRepository
    let notifier: any MateRequestNotifier
    let clock: @Sendable () -> Date
    let makeID: @Sendable () -> String

    /// Pending drops by id.
    var pending: [String: DropRecord] = [:]
    /// User id → the pending drop engaging them (both users of a drop point at it).
    var engaged: [String: String] = [:]
    /// Pending drops whose match was decided and partly written; they can only finish matching.
    var decided: Set<String> = []
    /// Matches of the last window, for idempotent repeats and "already matched" cancels.
    var recentMatches: [DropPair: MatchedDrop] = [:]
    /// User id → the pair of their latest recent match.
    var lastMatch: [String: DropPair] = [:]
    /// The one-at-a-time FIFO gate (`MatchService+Gate.swift`).
    let gate = AsyncSemaphore(permits: 1)

    /// Counters for `/metrics`.
    public internal(set) var metrics = MatchMetrics()

    /// Creates a service over the given repositories; `clock` and `makeID` are injectable for tests.
    public init(
        drops: any DropRepository, mateRequests: any MateRequestRepository, users: any UserRepository,
        notifier: any MateRequestNotifier, condition: DropCondition = .default,
        clock: @escaping @Sendable () -> Date = { Date() },
        makeID: @escaping @Sendable () -> String = { OutboxID.make() }
    ) {
        self.drops = drops
        self.mateRequests = mateRequests
        self.users = users
        self.notifier = notifier
        self.condition = condition
        self.clock = clock
        self.makeID = makeID
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
            let result = try await checkedReport(
                userID: userID, peerID: peerID, distance: distance,
                direction: direction)
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
        _ = try await cards(userID, peerID)  // outside the gate: profiles are not engagement state

        await enterGate()
        defer { leaveGate() }
        let now = clock()
        try await settleIfDue(userID: userID, now: now)
        try await settleIfDue(userID: peerID, now: now)
        let pair = DropPair(userID, peerID)
        if let done = recentMatch(pair, now: now) { return .matched(done.drop, mateRequests: done.requests) }
        if let dropID = engaged[userID], let drop = pending[dropID] {
            guard DropPair(drop) == pair else { return .busy }
            guard drop.initiatorID != userID else { return .pending(drop) }
            let done = try await completeMatch(drop, now: now)
            return .matched(done.drop, mateRequests: done.requests)
        }
        guard engaged[peerID] == nil else { return .busy }
        let drop = DropRecord(
            id: makeID(), initiatorID: userID, peerID: peerID, createdAt: now,
            expiresAt: now.addingTimeInterval(condition.window))
        try await drops.insert(drop)
        engage(drop)
        return .pending(drop)
    }

    /// The user's current drop: the pending one engaging them, else their match of the last window, else nil.
    public func status(userID: String) async throws -> DropRecord? {
        await enterGate()
        defer { leaveGate() }
        let now = clock()
        try await settleIfDue(userID: userID, now: now)
        if let dropID = engaged[userID], let drop = pending[dropID] { return drop }
        if let pair = lastMatch[userID], let done = recentMatch(pair, now: now) { return done.drop }
        return nil
    }

    /// Both users' profile cards; throws `MatchError.unknownUser` for the first one missing.
    func cards(_ first: String, _ second: String) async throws -> (ProfileCard, ProfileCard) {
        async let a = users.user(id: first)
        async let b = users.user(id: second)
        guard let firstUser = try await a else { throw MatchError.unknownUser(first) }
        guard let secondUser = try await b else { throw MatchError.unknownUser(second) }
        return (firstUser.card, secondUser.card)
    }

    func engage(_ drop: DropRecord) {
        pending[drop.id] = drop
        engaged[drop.initiatorID] = drop.id
        engaged[drop.peerID] = drop.id
    }

    /// Forgets a drop that is no longer pending and frees whichever of its users it still engages.
    func release(_ drop: DropRecord) {
        pending[drop.id] = nil
        decided.remove(drop.id)
        for user in [drop.initiatorID, drop.peerID] where engaged[user] == drop.id { engaged[user] = nil }
    }
}
