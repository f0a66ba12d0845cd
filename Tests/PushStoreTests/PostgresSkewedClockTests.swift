import Foundation
import JSON
import PostgresDriver
import ProfileDrop
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Instances whose clocks disagree by minutes share one PostgreSQL outbox: each passes its own clock's
/// `now`, as the worker does (`Date()`), and the leases and due times hold on the database's clock alone.
/// A skew is an offset added to the real time an instance passes, ahead or behind, for the holder of the
/// rows or for the instance that would take them over.
@Suite("PostgreSQL outbox: instances with skewed clocks")
struct PostgresSkewedClockTests {
    /// How far a skewed clock is off: far more than any lease.
    static let skew: TimeInterval = 5 * 60
    /// The lease of every instance: short, so a test waits it out in seconds.
    static let lease = Duration.seconds(2)

    /// One instance: its repositories on the shared database and its clock's offset from the real time.
    struct Instance: Sendable {
        var outbox: PostgresOutboxRepository
        var offset: TimeInterval
        /// The instance's own clock.
        var now: Date { Date().addingTimeInterval(offset) }
    }

    /// The holder (first) and the instance that would take its rows over (second), on one fresh database:
    /// always one of them with a normal clock.
    static func instances(holder: TimeInterval, taker: TimeInterval) async throws -> (Instance, Instance) {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "holder")
        let b = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "taker")
        return (
            Instance(outbox: PostgresOutboxRepository(database: a, lease: lease), offset: holder),
            Instance(outbox: PostgresOutboxRepository(database: b, lease: lease), offset: taker)
        )
    }

    /// (holder's offset, taker's offset): each direction of skew, on each side.
    static let pairs: [(TimeInterval, TimeInterval)] = [(0, skew), (0, -skew), (skew, 0), (-skew, 0)]

    static func items(_ prefix: String, _ instance: Instance) -> [OutboxItem] {
        (0..<5).map { outboxItem("\(prefix)-\($0)", token: $0 + 1, now: instance.now) }
    }

    @Test("no row is claimed twice while its holder lives and renews", arguments: pairs)
    func aLiveHolderKeepsItsRows(holder: TimeInterval, taker: TimeInterval) async throws {
        let (h, t) = try await Self.instances(holder: holder, taker: taker)
        try await h.outbox.enqueue(Self.items("live", h))
        let held = try await h.outbox.claim(limit: 10, now: h.now)
        #expect(held.count == 5)
        let holds = held.map { OutboxHold(id: $0.id, attempt: $0.attempts) }
        // For three leases the holder renews at a third of a lease, as a live worker does; the other
        // instance tries to claim all the while and gets nothing.
        let clock = ContinuousClock()
        let end = clock.now + Self.lease * 3
        var nextRenewal = clock.now + Self.lease / 3
        var stolen: [String] = []
        try await repeatEvery(.milliseconds(50), until: { clock.now >= end }) {
            stolen += try await t.outbox.claim(limit: 10, now: t.now).map(\.id)
            if clock.now >= nextRenewal {
                #expect(try await h.outbox.renewLeases(holds, now: h.now).count == 5)
                nextRenewal = clock.now + Self.lease / 3
            }
        }
        #expect(stolen.isEmpty)
        // The holder's outcomes all land: no other claim came between.
        let done = try await h.outbox.complete(held.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: h.now)
        #expect(done.count == 5 && done.values.allSatisfy { $0 == .accepted })
    }

    @Test("a dead holder's rows are taken over after its lease, not before", arguments: pairs)
    func aDeadHoldersRowsAreTakenOverAfterTheLease(holder: TimeInterval, taker: TimeInterval) async throws {
        let (h, t) = try await Self.instances(holder: holder, taker: taker)
        try await h.outbox.enqueue(Self.items("dead", h))
        let claimed = Date()  // the real time, before the claim's transaction started
        #expect(try await h.outbox.claim(limit: 10, now: h.now).count == 5)
        // The holder dies: no renewal. The other instance claims until it gets the rows.
        let takenOver = try await poll("the dead holder's rows taken over", within: Self.lease + .seconds(20)) {
            let claim = try await t.outbox.claim(limit: 10, now: t.now)
            return claim.isEmpty ? nil : (ids: claim.map(\.id), at: Date(), attempts: claim.map(\.attempts))
        }
        #expect(takenOver.ids.count == 5 && takenOver.attempts.allSatisfy { $0 == 2 })
        // Not before the lease ended (the database runs on this machine's clock).
        #expect(takenOver.at.timeIntervalSince(claimed) >= Self.lease / .seconds(1))
    }

    @Test(
        "a row enqueued or retried by a skewed instance is due for the others at once or after its back-off",
        arguments: [skew, -skew])
    func dueTimesFollowTheDatabase(offset: TimeInterval) async throws {
        let (skewed, normal) = try await Self.instances(holder: offset, taker: 0)
        // Enqueued by the skewed instance: due now for the normal one.
        try await skewed.outbox.enqueue(Self.items("due", skewed))
        let first = try await normal.outbox.claim(limit: 10, now: normal.now)
        #expect(first.count == 5)
        // Claimed by the skewed one after they come back: retried with a back-off of 1 s on its clock
        // (the default policy), so due again for the normal one about a second later, not minutes.
        let states = try await normal.outbox.complete(
            first.map { OutboxCompletion($0, .retry(status: 503, reason: "ServiceUnavailable")) }, now: normal.now)
        #expect(states.values.allSatisfy { $0 == .queued })
        let retried = try await poll("the rows due again for the skewed instance", within: .seconds(20)) {
            let claim = try await skewed.outbox.claim(limit: 10, now: skewed.now)
            return claim.isEmpty ? nil : claim
        }
        #expect(retried.count == 5)
        let completed = Date()
        let again = try await skewed.outbox.complete(
            retried.map { OutboxCompletion($0, .retry(status: 503, reason: "ServiceUnavailable")) }, now: skewed.now)
        #expect(again.values.allSatisfy { $0 == .queued })
        let third = try await poll("the skewed instance's retry due for the normal one", within: .seconds(20)) {
            let claim = try await normal.outbox.claim(limit: 10, now: normal.now)
            return claim.isEmpty ? nil : (count: claim.count, at: Date())
        }
        #expect(third.count == 5)
        // Not before its back-off (the second retry waits 2 s under the default policy, from the completion).
        #expect(third.at.timeIntervalSince(completed) >= 1.9)
    }

    @Test("two reports paired by instances whose clocks differ match within the window", arguments: [skew, -skew])
    func dropWindowsFollowTheDatabase(offset: TimeInterval) async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let normal = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "normal")
        let skewed = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "skewed")
        let window = Duration.seconds(60)
        // Each order: the normal instance first, then the skewed one, and the other way round.
        for (first, second, firstOffset, secondOffset, pair) in [
            (normal, skewed, 0, offset, ("a", "b")), (skewed, normal, offset, 0, ("c", "d")),
        ] {
            let opened = try await first.drops.report(
                dropReport(pair.0, pair.1, window: window), now: Date().addingTimeInterval(firstOffset)
            ).0
            guard case .pending(_) = opened else {
                Issue.record("the first report did not open a drop: \(opened)")
                continue
            }
            let answered = try await second.drops.report(
                dropReport(pair.1, pair.0, window: window), now: Date().addingTimeInterval(secondOffset)
            ).0
            guard case .matched(_, _) = answered else {
                Issue.record("the report \(secondOffset == 0 ? "after the skewed one" : "of the skewed instance") did not match: \(answered)")
                continue
            }
        }
    }

    @Test(
        "an idempotency key claimed by one instance is not taken again by another whose clock differs",
        arguments: [2 * skew, -2 * skew])
    func idempotencyExpiryFollowsTheDatabase(offset: TimeInterval) async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let normal = PostgresIdempotencyRepository(database: try await PostgresDatabase.open(url: url, poolSize: 1))
        let skewed = PostgresIdempotencyRepository(database: try await PostgresDatabase.open(url: url, poolSize: 1))
        // Keys are kept a minute; a claim left unanswered counts as abandoned after five (the default).
        let ttl = Duration.seconds(60)
        let clocks: [(PostgresIdempotencyRepository, TimeInterval, PostgresIdempotencyRepository, TimeInterval)] = [
            (normal, 0, skewed, offset), (skewed, offset, normal, 0),
        ]
        for (index, (first, firstOffset, second, secondOffset)) in clocks.enumerated() {
            let key = "k\(index)"
            #expect(
                try await first.begin(key: key, scope: "s", fingerprint: [1], now: Date().addingTimeInterval(firstOffset), ttl: ttl)
                    == .proceed)
            #expect(
                try await second.begin(key: key, scope: "s", fingerprint: [1], now: Date().addingTimeInterval(secondOffset), ttl: ttl)
                    == .inProgress)
            try await first.finish(key: key, scope: "s", answer: IdempotentAnswer(status: 202, body: [7]))
            #expect(
                try await second.begin(key: key, scope: "s", fingerprint: [1], now: Date().addingTimeInterval(secondOffset), ttl: ttl)
                    == .replay(IdempotentAnswer(status: 202, body: [7])))
        }
    }

    @Test("a push's expiration is checked at claim on the database's clock", arguments: [skew, -skew])
    func expirationsFollowTheDatabase(offset: TimeInterval) async throws {
        let (skewed, _) = try await Self.instances(holder: offset, taker: 0)
        let second = Int(Date().timeIntervalSince1970)
        // One row still valid for a minute, one whose expiration passed a minute ago (by the real time).
        try await skewed.outbox.enqueue([
            outboxItem("valid", token: 1, expiration: second + 60, now: skewed.now),
            outboxItem("stale", token: 2, expiration: second - 60, now: skewed.now),
        ])
        let claim = try await skewed.outbox.claim(limit: 10, now: skewed.now)
        #expect(claim.items.map(\.id) == ["valid"])
        #expect(claim.expired == ["stale"])
    }

    @Test("webhook deliveries of a dead instance are taken over after their lease, not before", arguments: [skew, -skew])
    func webhookLeasesFollowTheDatabase(offset: TimeInterval) async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let holder = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "holder")
        let taker = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "taker")
        try await holder.webhooks.addEndpoint(webhookEndpoint("ops"))
        let events = (0..<3).map {
            WebhookEvent(type: .notificationRejected, occurredAt: Date().addingTimeInterval(-1), data: ["n": .int(Int64($0))])
        }
        #expect(try await holder.webhooks.record(events) == 3)
        let claimed = Date()
        #expect(try await holder.webhooks.claim(endpointID: "ops", limit: 10, lease: Self.lease, now: Date()).count == 3)
        // The holder dies; the skewed instance claims until it gets them.
        let takenOver = try await poll("the dead holder's deliveries taken over", within: Self.lease + .seconds(20)) {
            let claim = try await taker.webhooks.claim(
                endpointID: "ops", limit: 10, lease: Self.lease, now: Date().addingTimeInterval(offset))
            return claim.isEmpty ? nil : (count: claim.count, at: Date())
        }
        #expect(takenOver.count == 3)
        #expect(takenOver.at.timeIntervalSince(claimed) >= Self.lease / .seconds(1))
    }
}
