import APNSCore
import Foundation
public import JSON

/// What a chaos run did and found. `passed` is the verdict: the planned load and faults all happened
/// (every push acknowledged, every kill landed, the kills during delivery with rows still to send, GOAWAYs
/// and resets injected), nothing was lost, every row is final and agrees with the mock, no problem was
/// noted, and the database is sound. `failures` says what stands in the way.
public struct ChaosReport: Sendable {
    /// Notifications the plan asked the API to acknowledge.
    public var plannedPushes = 0
    /// SIGKILLs the plan asked for.
    public var plannedKills = 0
    /// Whether the plan asked the mock for GOAWAYs (then at least one must have been sent).
    public var goAwaysPlanned = false
    /// Whether the plan asked the mock for abrupt closes (then at least one must have happened).
    public var abruptClosesPlanned = false
    /// Queued plus in-flight outbox rows at each SIGKILL, read from the database once the server was dead.
    /// Every kill after the first is meant to land during delivery: its depth must be above 0.
    public var depthAtKills: [Int] = []
    /// Notifications the API acknowledged with 2xx.
    public var acknowledged = 0
    /// `POST`s that got no 2xx answer (cut by a kill or refused while the server was down).
    public var unansweredPosts = 0
    /// The longest any `POST` took to be answered or to fail, in seconds: a post never waits for a kill
    /// elsewhere (one silent for `ChaosLoad.stallTimeout` is a problem).
    public var slowestPostSeconds = 0.0
    /// Rows stored by `POST`s whose answer was lost (committed, but the caller never heard): rows whose
    /// token belongs to an unanswered post, counted in the outbox.
    public var storedWithoutAnswer = 0
    /// Rows that belong to neither an acknowledged push nor an unanswered post: must be 0.
    public var unaccountedRows = 0
    /// Rows in the outbox at the end.
    public var outboxRows = 0
    /// Rows per final state.
    public var outboxStates: [String: Int] = [:]
    /// Acknowledged notifications the mock never accepted, or whose row is not final: must be 0.
    public var lost = 0
    /// Rows whose final state disagrees with what the mock recorded for their `apns-id`: must be 0.
    public var disagreements = 0
    /// Distinct `apns-id`s the mock accepted.
    public var delivered = 0
    /// Extra acceptances of an `apns-id` already accepted (resends after an unknown outcome).
    public var duplicates = 0
    /// Notifications accepted more than once whose acceptances did not all carry one and the same
    /// `apns-collapse-id` (a missing one counts as different): must be 0, so that every duplicate replaces
    /// the first copy on the device instead of showing twice (push-server derives one from the row id).
    public var duplicatesWithoutSharedCollapseID = 0
    /// Up to five of those: the apns-id and the collapse id of each acceptance ("-" for none).
    public var collapseExamples: [String] = []
    /// False when the plan cut nothing (no reset, no kill): then every answer must reach push-server and
    /// `duplicates` must be 0.
    public var duplicatesAllowed = true
    /// `PRAGMA integrity_check` after the last stop.
    public var integrity = ""
    /// SIGKILLs survived.
    public var kills = 0
    /// Exit status of the final SIGTERM stop (0 expected).
    public var finalExitStatus: Int32 = -1
    /// GOAWAY frames the mock sent.
    public var goAways = 0
    /// Connections the mock reset.
    public var abruptCloses = 0
    /// Rejections the mock answered, by reason (429 and 503 here).
    public var rejections: [String: Int] = [:]
    /// Requests the mock received.
    public var streams = 0
    /// Whether delivery finished before `deliveryTimeout`.
    public var deliveredInTime = false
    /// Wall-clock seconds of the whole run.
    public var seconds = 0.0
    /// What a cluster run found about leases and duplicates (nil for a single instance on SQLite).
    public var cluster: ChaosClusterFindings?
    /// The first few problems found, for the summary.
    public var problems: [String] = []

    /// An empty report (nothing planned, nothing happened), filled in by the run.
    public init() {}

    /// Why the run did not pass; empty when it passed.
    public var failures: [String] {
        var failures: [String] = []
        func require(_ condition: Bool, _ failure: @autoclosure () -> String) {
            if !condition { failures.append(failure()) }
        }
        require(acknowledged >= plannedPushes, "\(acknowledged) of \(plannedPushes) pushes acknowledged")
        require(kills == plannedKills, "\(kills) of \(plannedKills) SIGKILLs happened")
        require(
            depthAtKills.count == kills && depthAtKills.allSatisfy { $0 >= 0 },
            "outbox depth at the kills unknown: \(depthAtKills)")
        for (index, depth) in depthAtKills.enumerated().dropFirst() where depth == 0 {
            failures.append("kill \(index + 1) landed with nothing left to deliver")
        }
        require(!goAwaysPlanned || goAways > 0, "no GOAWAY was sent")
        require(!abruptClosesPlanned || abruptCloses > 0, "no connection was reset")
        require(lost == 0, "\(lost) acknowledged notifications lost")
        require(duplicatesAllowed || duplicates == 0, "\(duplicates) notifications accepted twice though nothing was cut")
        require(
            duplicatesWithoutSharedCollapseID == 0,
            "\(duplicatesWithoutSharedCollapseID) notifications accepted twice with different collapse ids: "
                + collapseExamples.joined(separator: "; "))
        require(disagreements == 0, "\(disagreements) disagreements with the mock")
        require(unaccountedRows == 0, "\(unaccountedRows) rows belong to no post of this run")
        let final = ["accepted", "rejected", "failed", "expired"].reduce(0) { $0 + (outboxStates[$1] ?? 0) }
        require(outboxRows == final, "\(outboxRows - final) rows not in a final state")
        require(deliveredInTime, "delivery did not finish before the timeout")
        require(integrity == "ok", "integrity_check: \(integrity)")
        require(finalExitStatus == 0, "final stop exited \(finalExitStatus)")
        require(problems.isEmpty, "\(problems.count) problems noted")
        return failures + (cluster?.failures ?? [])
    }

    /// The verdict: true when nothing in `failures`.
    public var passed: Bool { failures.isEmpty }

    /// A few lines for people.
    public var summary: String {
        let reasons = rejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let states = outboxStates.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = [
            "chaos: \(passed ? "PASSED" : "FAILED") in \(String(format: "%.1f", seconds)) s",
            "  pushes: \(acknowledged) acknowledged by the API, \(storedWithoutAnswer) more stored by posts cut off (\(unansweredPosts) posts unanswered); slowest post \(String(format: "%.2f", slowestPostSeconds)) s",
            "  faults injected: \(kills) SIGKILL + restart (outbox depth at each: \(depthAtKills.map(String.init).joined(separator: ", "))), \(goAways) GOAWAY, \(abruptCloses) abrupt TCP closes, rejections: \(reasons.isEmpty ? "none" : reasons), over \(streams) streams",
            "  outbox: \(outboxRows) rows; \(states)",
            "  delivered: \(delivered) distinct apns-ids; duplicates \(duplicates) (resends after an unknown outcome), \(duplicatesWithoutSharedCollapseID) of them without a shared collapse id",
            "  lost: \(lost); disagreements with the mock: \(disagreements); integrity_check: \(integrity); final stop exit \(finalExitStatus)",
        ]
        if let cluster { lines.append(cluster.summary) }
        lines += failures.map { "  FAILED: \($0)" }
        lines += problems.prefix(10).map { "  problem: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON object (for bench-style result files).
    public var json: JSONValue {
        func counts(_ values: [String: Int]) -> JSONValue { .object(values.mapValues { .int(Int64($0)) }) }
        var object: [String: JSONValue] = [
            "passed": .bool(passed), "seconds": .double(seconds), "acknowledged": .int(Int64(acknowledged)),
            "unanswered_posts": .int(Int64(unansweredPosts)), "stored_without_answer": .int(Int64(storedWithoutAnswer)),
            "slowest_post_s": .double(slowestPostSeconds),
            "outbox_rows": .int(Int64(outboxRows)), "outbox_states": counts(outboxStates), "lost": .int(Int64(lost)),
            "disagreements": .int(Int64(disagreements)), "delivered": .int(Int64(delivered)),
            "duplicates": .int(Int64(duplicates)), "integrity": .string(integrity), "kills": .int(Int64(kills)),
            "planned_kills": .int(Int64(plannedKills)), "planned_pushes": .int(Int64(plannedPushes)),
            "depth_at_kills": .array(depthAtKills.map { .int(Int64($0)) }), "unaccounted_rows": .int(Int64(unaccountedRows)),
            "failures": .array(failures.map { .string($0) }), "problems": .array(problems.map { .string($0) }),
            "goaways": .int(Int64(goAways)), "abrupt_closes": .int(Int64(abruptCloses)),
            "rejections": counts(rejections), "streams": .int(Int64(streams)),
            "duplicates_allowed": .bool(duplicatesAllowed),
            "duplicates_without_shared_collapse_id": .int(Int64(duplicatesWithoutSharedCollapseID)),
            "collapse_examples": .array(collapseExamples.map { .string($0) }),
        ]
        if let cluster { object["cluster"] = cluster.json }
        return .object(object)
    }
}
