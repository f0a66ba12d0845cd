import Foundation
public import JSON

/// What a cluster run (several push-server instances on one PostgreSQL database) found beyond a
/// single-instance run: which rows each killed instance had in flight, whether another instance took exactly
/// those over and only after their lease, and whether every duplicate is explained by a kill or by a reset
/// that cut off an answer still owed.
public struct ChaosClusterFindings: Sendable {
    /// What one SIGKILL showed about leases.
    public struct Kill: Sendable, Equatable {
        /// The apns-ids of the rows the killed instance held in flight (read from the database once it was
        /// dead).
        public var held: Set<String> = []
        /// Why `held` is not known (the query failed, or a lease did not parse): then the kill proved nothing.
        public var heldUnknown: String?
        /// The apns-ids of those rows that went out again after the kill (the dead instance's own last sends,
        /// read by the mock just after it died, not counted).
        public var resent: Set<String> = []
        /// Sends of held rows after the kill but before their lease ended: must be 0.
        public var resentBeforeLease = 0
        /// Extra acceptances of the held rows: rows APNs had accepted whose outcome the instance had not
        /// committed when it died, accepted again once another instance took them over.
        public var duplicates = 0

        /// A kill with these findings.
        public init(
            held: Set<String> = [], heldUnknown: String? = nil, resent: Set<String> = [], resentBeforeLease: Int = 0, duplicates: Int = 0
        ) {
            self.duplicates = duplicates
            self.held = held
            self.heldUnknown = heldUnknown
            self.resent = resent
            self.resentBeforeLease = resentBeforeLease
        }
    }

    /// Where a killed instance's in-flight rows stood when it died, from the mock's records of them: not yet
    /// seen by APNs (claimed, not sent), seen within the mock's longest answer delay before the kill (sent,
    /// answer possibly still owed), or seen earlier (answered, outcome not committed). Only answered rows
    /// can become duplicates.
    public struct Stages: Sendable, Equatable {
        /// Held rows the mock had not seen before the kill (nor read from the dead instance's connection
        /// just after it).
        public var unsent = 0
        /// Held rows the mock saw within its longest answer delay before the kill, or read after it from what
        /// the dead instance had written just before (`ChaosRun.stages`).
        public var awaitingAnswer = 0
        /// Held rows the mock had answered before the kill (saw them earlier than its longest answer delay).
        public var answered = 0
        /// Of the answered rows, the median time from the mock's decision to the kill, in seconds: how long an
        /// answered row waited for its outcome to be committed (at least), nil when none was answered.
        public var answeredAgeMedian: Double?

        /// Stages with these counts.
        public init(unsent: Int = 0, awaitingAnswer: Int = 0, answered: Int = 0, answeredAgeMedian: Double? = nil) {
            self.unsent = unsent
            self.awaitingAnswer = awaitingAnswer
            self.answered = answered
            self.answeredAgeMedian = answeredAgeMedian
        }
    }

    /// push-server instances sharing the database.
    public var instances = 0
    /// The outbox lease of the run, in seconds.
    public var leaseSeconds = 0.0
    /// One entry per SIGKILL, in order.
    public var kills: [Kill] = []
    /// Where the rows each SIGKILL left in flight stood (same order as `kills`).
    public var stagesAtKills: [Stages] = []
    /// Duplicates (extra acceptances) of the rows each SIGKILL left in flight.
    public var duplicatesAtKills: [Int] { kills.map(\.duplicates) }
    /// Rows the killed instance held in flight at each SIGKILL.
    public var inFlightAtKills: [Int] { kills.map(\.held.count) }
    /// Rows held in flight by a killed instance that another instance (or its successor) sent afterwards.
    public var resentAfterLease: Int { kills.reduce(0) { $0 + $1.resent.count } }
    /// Sends of a killed instance's in-flight rows after the kill but before their lease ended: must be 0.
    public var resentBeforeLease: Int { kills.reduce(0) { $0 + $1.resentBeforeLease } }
    /// Requests the killed instance had written before it died that the mock read after the kill (within a
    /// second, on a connection silent from then on): its own last sends, not resends.
    public var lastSendsOfTheDead = 0
    /// The shortest wait, in seconds, between a kill and a resend of one of its in-flight rows (≥ the
    /// lease minus the time the row had been in flight).
    public var earliestResendAfterKill: Double?
    /// Extra acceptances of rows a killed instance had in flight (the answer died with it).
    public var duplicatesOfKilledInFlight = 0
    /// Extra acceptances of rows whose every earlier acceptance was cut off by a reset: the mock reset the
    /// connection while that answer was still owed (``APNSMock/MockAPNSReset``).
    public var duplicatesAfterReset = 0
    /// Extra acceptances explained by neither: must be 0.
    public var unexplainedDuplicates = 0
    /// Up to five of those, each its apns-id and every send of it (seconds after the first kill, connection,
    /// stream, whether a reset of that connection came while its answer was owed, the answer): what to start
    /// from when one shows up.
    public var unexplainedExamples: [String] = []
    /// Rows in a final state that still name an owner or lease, in-flight rows without one, rows whose
    /// `due` / `ended_at` disagree with their state (pending rows are due, final ones ended), ranges whose
    /// owner and lease disagree or whose count of rows without a state row is wrong, and rows with neither a
    /// state row nor a range: must be 0.
    public var leaseInconsistencies = -1
    /// `amcheck`'s `bt_index_check` over the outbox's indexes: "ok" or the error.
    public var indexCheck = ""

    /// An empty record, filled in by the run.
    public init() {}

    /// Why the cluster part of the run did not pass; empty when it passed. Each kill must have held rows in
    /// flight (else it tested no lease), and the rows sent again after it must be exactly those rows.
    public var failures: [String] {
        var failures: [String] = []
        for (index, kill) in kills.enumerated() {
            let name = "kill \(index + 1)"
            if let reason = kill.heldUnknown {
                failures.append("\(name): the rows it held in flight are unknown (\(reason))")
                continue
            }
            if kill.held.isEmpty {
                failures.append("\(name) landed with no rows in flight: it tested no lease")
                continue
            }
            if kill.resent != kill.held {
                let never = kill.held.subtracting(kill.resent).sorted()
                let extra = kill.resent.subtracting(kill.held).sorted()
                var parts: [String] = []
                if !never.isEmpty { parts.append("\(never.count) never sent again (\(Self.some(never)))") }
                if !extra.isEmpty { parts.append("\(extra.count) sent again but not held (\(Self.some(extra)))") }
                failures.append(
                    "\(name): the rows sent again after it are not the \(kill.held.count) it held: " + parts.joined(separator: "; "))
            }
        }
        if resentBeforeLease != 0 { failures.append("\(resentBeforeLease) sends of a killed instance's rows before their lease ended") }
        if unexplainedDuplicates != 0 {
            failures.append(
                "\(unexplainedDuplicates) duplicates outside the killed instances' in-flight rows and answers cut off by a reset")
        }
        if leaseInconsistencies != 0 { failures.append("\(leaseInconsistencies) rows with an inconsistent owner, lease or due time") }
        if indexCheck != "ok" { failures.append("index check: \(indexCheck)") }
        return failures
    }

    /// The first few of `ids`, for a failure line.
    private static func some(_ ids: [String]) -> String {
        ids.prefix(5).joined(separator: ", ") + (ids.count > 5 ? ", …" : "")
    }

    /// One line for people.
    public var summary: String {
        let earliest = earliestResendAfterKill.map { String(format: "%.2f s", $0) } ?? "-"
        return "  cluster: \(instances) instances, lease \(String(format: "%.0f", leaseSeconds)) s; in flight at the kills: "
            + "\(inFlightAtKills.map(String.init).joined(separator: ", ")); resent after the lease \(resentAfterLease) "
            + "(earliest \(earliest) after its kill), before it \(resentBeforeLease); read after the kill but sent before it \(lastSendsOfTheDead); duplicates: \(duplicatesOfKilledInFlight) of "
            + "killed in-flight rows (per kill: \(duplicatesAtKills.map(String.init).joined(separator: ", "))), \(duplicatesAfterReset) cut off by resets, \(unexplainedDuplicates) unexplained; "
            + "in flight at each kill (unsent/awaiting answer/answered, answered median age): "
            + stagesAtKills.map { stage in
                "\(stage.unsent)/\(stage.awaitingAnswer)/\(stage.answered) "
                    + (stage.answeredAgeMedian.map { String(format: "%.0f ms", $0 * 1000) } ?? "-")
            }.joined(separator: ", ") + "; "
            + "lease inconsistencies \(leaseInconsistencies); index check \(indexCheck)"
            + unexplainedExamples.map { "\n    unexplained duplicate \($0)" }.joined()
    }

    /// The findings as one JSON object.
    public var json: JSONValue {
        [
            "instances": .int(Int64(instances)), "lease_s": .double(leaseSeconds),
            "in_flight_at_kills": .array(inFlightAtKills.map { .int(Int64($0)) }),
            "resent_at_kills": .array(kills.map { .int(Int64($0.resent.count)) }),
            "held_unknown_at_kills": .array(kills.map { $0.heldUnknown.map { .string($0) } ?? .null }),
            "resent_after_lease": .int(Int64(resentAfterLease)), "resent_before_lease": .int(Int64(resentBeforeLease)),
            "last_sends_of_the_dead": .int(Int64(lastSendsOfTheDead)),
            "earliest_resend_after_kill_s": earliestResendAfterKill.map { .double($0) } ?? .null,
            "duplicates_of_killed_in_flight": .int(Int64(duplicatesOfKilledInFlight)),
            "duplicates_at_kills": .array(duplicatesAtKills.map { .int(Int64($0)) }),
            "duplicates_after_reset": .int(Int64(duplicatesAfterReset)),
            "in_flight_stages_at_kills": .array(
                stagesAtKills.map { stage in
                    [
                        "unsent": .int(Int64(stage.unsent)), "awaiting_answer": .int(Int64(stage.awaitingAnswer)),
                        "answered": .int(Int64(stage.answered)),
                        "answered_age_median_s": stage.answeredAgeMedian.map { .double($0) } ?? .null,
                    ]
                }),
            "unexplained_duplicates": .int(Int64(unexplainedDuplicates)),
            "unexplained_examples": .array(unexplainedExamples.map { .string($0) }),
            "lease_inconsistencies": .int(Int64(leaseInconsistencies)), "index_check": .string(indexCheck),
        ]
    }
}
