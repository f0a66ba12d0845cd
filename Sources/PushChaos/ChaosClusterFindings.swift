import Foundation
public import JSON

/// What a cluster run (several push-server instances on one PostgreSQL database) found beyond a
/// single-instance run: which rows each killed instance had in flight, whether another instance took them
/// over only after their lease, and whether every duplicate is explained by a kill or a reset connection.
public struct ChaosClusterFindings: Sendable {
    /// push-server instances sharing the database.
    public var instances = 0
    /// The outbox lease of the run, in seconds.
    public var leaseSeconds = 0.0
    /// Rows the killed instance held in flight at each SIGKILL (read from the database once it was dead).
    public var inFlightAtKills: [Int] = []
    /// Rows held in flight by a killed instance that another instance (or its successor) sent afterwards.
    public var resentAfterLease = 0
    /// Requests the killed instance had written before it died that the mock read after the kill (within a
    /// second, on a connection silent from then on): its own last sends, not resends.
    public var lastSendsOfTheDead = 0
    /// Sends of a killed instance's in-flight rows after the kill but before their lease ended: must be 0.
    public var resentBeforeLease = 0
    /// The shortest wait, in seconds, between a kill and a resend of one of its in-flight rows (≥ the
    /// lease minus the time the row had been in flight).
    public var earliestResendAfterKill: Double?
    /// Extra acceptances of rows a killed instance had in flight (the answer died with it).
    public var duplicatesOfKilledInFlight = 0
    /// Extra acceptances of rows whose earlier acceptance went out on a connection the mock reset.
    public var duplicatesAfterReset = 0
    /// Extra acceptances explained by neither: must be 0.
    public var unexplainedDuplicates = 0
    /// Up to five of those, each its apns-id and every send of it (seconds after the first kill, connection,
    /// whether the mock reset that connection, the answer): what to start from when one shows up.
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

    /// Why the cluster part of the run did not pass; empty when it passed.
    public var failures: [String] {
        var failures: [String] = []
        if resentBeforeLease != 0 { failures.append("\(resentBeforeLease) sends of a killed instance's rows before their lease ended") }
        if unexplainedDuplicates != 0 {
            failures.append("\(unexplainedDuplicates) duplicates outside the killed instances' in-flight rows and reset connections")
        }
        if leaseInconsistencies != 0 { failures.append("\(leaseInconsistencies) rows with an inconsistent owner, lease or due time") }
        if indexCheck != "ok" { failures.append("index check: \(indexCheck)") }
        return failures
    }

    /// One line for people.
    public var summary: String {
        let earliest = earliestResendAfterKill.map { String(format: "%.2f s", $0) } ?? "-"
        return "  cluster: \(instances) instances, lease \(String(format: "%.0f", leaseSeconds)) s; in flight at the kills: "
            + "\(inFlightAtKills.map(String.init).joined(separator: ", ")); resent after the lease \(resentAfterLease) "
            + "(earliest \(earliest) after its kill), before it \(resentBeforeLease); read after the kill but sent before it \(lastSendsOfTheDead); duplicates: \(duplicatesOfKilledInFlight) of "
            + "killed in-flight rows, \(duplicatesAfterReset) after resets, \(unexplainedDuplicates) unexplained; "
            + "lease inconsistencies \(leaseInconsistencies); index check \(indexCheck)"
            + unexplainedExamples.map { "\n    unexplained duplicate \($0)" }.joined()
    }

    /// The findings as one JSON object.
    public var json: JSONValue {
        [
            "instances": .int(Int64(instances)), "lease_s": .double(leaseSeconds),
            "in_flight_at_kills": .array(inFlightAtKills.map { .int(Int64($0)) }),
            "resent_after_lease": .int(Int64(resentAfterLease)), "resent_before_lease": .int(Int64(resentBeforeLease)),
            "last_sends_of_the_dead": .int(Int64(lastSendsOfTheDead)),
            "earliest_resend_after_kill_s": earliestResendAfterKill.map { .double($0) } ?? .null,
            "duplicates_of_killed_in_flight": .int(Int64(duplicatesOfKilledInFlight)),
            "duplicates_after_reset": .int(Int64(duplicatesAfterReset)),
            "unexplained_duplicates": .int(Int64(unexplainedDuplicates)),
            "unexplained_examples": .array(unexplainedExamples.map { .string($0) }),
            "lease_inconsistencies": .int(Int64(leaseInconsistencies)), "index_check": .string(indexCheck),
        ]
    }
}
