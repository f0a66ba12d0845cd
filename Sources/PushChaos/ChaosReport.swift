import APNSCore
import Foundation

/// What a chaos run did and found. `passed` is the verdict: nothing lost, every row final and in
/// agreement with the mock, database sound.
public struct ChaosReport: Sendable {
    /// Notifications the API acknowledged with 2xx.
    public var acknowledged = 0
    /// `POST`s that got no 2xx answer (cut by a kill or refused while the server was down).
    public var unansweredPosts = 0
    /// Rows stored by `POST`s whose answer was lost (committed, but the caller never heard).
    public var storedWithoutAnswer = 0
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
    /// The first few problems found, for the summary.
    public var problems: [String] = []

    /// The verdict.
    public var passed: Bool {
        lost == 0 && disagreements == 0 && integrity == "ok" && deliveredInTime && finalExitStatus == 0
            && outboxRows == (outboxStates["accepted"] ?? 0) + (outboxStates["rejected"] ?? 0)
                + (outboxStates["failed"] ?? 0) + (outboxStates["expired"] ?? 0)
    }

    /// A few lines for people.
    public var summary: String {
        let reasons = rejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let states = outboxStates.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = [
            "chaos: \(passed ? "PASSED" : "FAILED") in \(String(format: "%.1f", seconds)) s",
            "  pushes: \(acknowledged) acknowledged by the API, \(storedWithoutAnswer) more stored by posts cut off (\(unansweredPosts) posts unanswered)",
            "  faults injected: \(kills) SIGKILL + restart, \(goAways) GOAWAY, \(abruptCloses) abrupt TCP closes, rejections: \(reasons.isEmpty ? "none" : reasons), over \(streams) streams",
            "  outbox: \(outboxRows) rows; \(states)",
            "  delivered: \(delivered) distinct apns-ids; duplicates \(duplicates) (resends after an unknown outcome)",
            "  lost: \(lost); disagreements with the mock: \(disagreements); integrity_check: \(integrity); final stop exit \(finalExitStatus)",
        ]
        if !deliveredInTime { lines.append("  delivery did not finish before the timeout") }
        lines += problems.prefix(10).map { "  problem: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON object (for bench-style result files).
    public var json: JSONValue {
        func counts(_ values: [String: Int]) -> JSONValue { .object(values.mapValues { .int(Int64($0)) }) }
        return [
            "passed": .bool(passed), "seconds": .double(seconds), "acknowledged": .int(Int64(acknowledged)),
            "unanswered_posts": .int(Int64(unansweredPosts)), "stored_without_answer": .int(Int64(storedWithoutAnswer)),
            "outbox_rows": .int(Int64(outboxRows)), "outbox_states": counts(outboxStates), "lost": .int(Int64(lost)),
            "disagreements": .int(Int64(disagreements)), "delivered": .int(Int64(delivered)),
            "duplicates": .int(Int64(duplicates)), "integrity": .string(integrity), "kills": .int(Int64(kills)),
            "goaways": .int(Int64(goAways)), "abrupt_closes": .int(Int64(abruptCloses)),
            "rejections": counts(rejections), "streams": .int(Int64(streams)),
        ]
    }
}
