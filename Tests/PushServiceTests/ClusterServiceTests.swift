import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import PushStoreSQL
import Testing

/// Three instances of the service on one PostgreSQL database: delivery and profile drops spread over them.
@Suite("Three instances on one PostgreSQL database")
struct ClusterServiceTests {
    @Test("10,000 notifications posted through any of three instances are each sent exactly once", .timeLimit(.minutes(3)))
    func eachNotificationSentOnce() async throws {
        let harness = try await ClusterHarness.start(instances: 3)
        let batches = 40
        let perBatch = 250
        let tokens: [[String]] = (0..<batches).map { _ in (0..<perBatch).map { _ in ServiceHarness.randomToken() } }
        let pushIDs = try await ClusterHarness.concurrently(batches, width: 6) { batch in
            let response = try await harness.client(batch).send(
                "POST", "/v1/pushes",
                json: ["tokens": .array(tokens[batch].map { .string($0) }), "alert": "hello", "environment": "development"])
            #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
            return response.json?["push_id"]?.stringValue ?? ""
        }
        let total = batches * perBatch
        await harness.mock.waitForAccepted(count: total)
        // Each instance finishes what it holds in flight before it stops: a second send of any row would
        // be recorded by then.
        await harness.stop()

        let accepted = harness.mock.records().filter(\.isAccepted)
        #expect(accepted.count == total, "zero duplicates: \(accepted.count - total) extra acceptances")
        #expect(Set(accepted.map(\.apnsID)).count == total)
        #expect(Set(accepted.map(\.token)) == Set(tokens.flatMap { $0 }), "zero lost")
        let database = try await PostgresDatabase.open(url: harness.databaseURL, poolSize: 1, instanceID: "checker")
        defer { database.close() }
        let outbox = PostgresOutboxRepository(database: database)
        #expect(try await outbox.counts().filter { $0.value > 0 } == [.accepted: total])
        let rows = try await outbox.allItems()
        #expect(rows.count == total && Set(rows.map(\.pushID)) == Set(pushIDs))
        #expect(Set(rows.compactMap(\.apnsID?.rawValue)) == Set(accepted.map(\.apnsID)))
    }

    @Test("1,000 concurrent drop reports toward one user over three instances: one winner, 999 busy, one mate request each way")
    func oneWinnerAcrossInstances() async throws {
        let harness = try await ClusterHarness.start(instances: 3)
        let reporters = (0..<1_000).map { "r\($0)" }
        try await addUsers(["x"] + reporters, harness)
        let answers = try await ClusterHarness.concurrently(reporters.count, width: 48) { index in
            let response = try await harness.client(index).send(
                "POST", "/v1/drops", json: ["user_id": .string(reporters[index]), "peer_id": "x", "distance_m": 0.1])
            return (reporters[index], response.status, response.errorCode)
        }
        let winners = answers.filter { $0.1 == 201 }
        #expect(winners.count == 1)
        #expect(answers.filter { $0.1 == 409 && $0.2 == "busy" }.count == 999)
        let winner = try #require(winners.first?.0)
        // x's report, through each instance in turn: the first matches, the repeats see the match.
        let matched = try await harness.client(1).send("POST", "/v1/drops", json: ["user_id": "x", "peer_id": .string(winner), "distance_m": 0.1])
        #expect(matched.status == 200 && matched.json?["state"]?.stringValue == "matched")
        #expect(matched.json?["mate_requests"]?.arrayValue?.count == 2)
        for index in 0..<3 {
            let toWinner = try await harness.client(index).send("GET", "/v1/users/\(winner)/mate-requests?role=recipient")
            let toX = try await harness.client(index).send("GET", "/v1/users/x/mate-requests?role=recipient")
            #expect(toWinner.json?["mate_requests"]?.arrayValue?.count == 1)
            #expect(toX.json?["mate_requests"]?.arrayValue?.count == 1)
        }
        await harness.stop()
    }

    @Test("1,000 cancel-vs-match races, cancel and report on different instances: each decided once")
    func cancelAgainstMatchAcrossInstances() async throws {
        // Drops live an hour here: on a slow run (a sanitizer, a busy machine) the default 10 s window could
        // end before the races, and an expired drop is neither cancelled nor matched.
        let harness = try await ClusterHarness.start(instances: 3) { $0.dropWindow = .seconds(3_600) }
        let pairs = (0..<1_000).map { ("i\($0)", "p\($0)") }
        try await addUsers(pairs.flatMap { [$0.0, $0.1] }, harness)
        let opened = try await ClusterHarness.concurrently(pairs.count, width: 48) { index in
            try await harness.client(index).send(
                "POST", "/v1/drops", json: ["user_id": .string(pairs[index].0), "peer_id": .string(pairs[index].1), "distance_m": 0.1]
            ).status
        }
        #expect(opened.allSatisfy { $0 == 201 })
        // For each pair at once: the initiator cancels on one instance, the peer reports on another.
        // Each answer as status and what its body says: the state, or the error code.
        let races = try await ClusterHarness.concurrently(pairs.count * 2, width: 64) { slot in
            let (initiator, peer) = pairs[slot / 2]
            let response =
                if slot % 2 == 0 {
                    try await harness.client(slot / 2).send("DELETE", "/v1/users/\(initiator)/drop")
                } else {
                    try await harness.client(slot / 2 + 1).send(
                        "POST", "/v1/drops", json: ["user_id": .string(peer), "peer_id": .string(initiator), "distance_m": 0.1])
                }
            return Answer(response)
        }
        var cancelledFirst = 0
        var matchedFirst = 0
        for index in pairs.indices {
            let (initiator, _) = pairs[index]
            let (cancel, report) = (races[index * 2], races[index * 2 + 1])
            let count = try await mateRequests(of: initiator, harness.client(index))
            switch (cancel, report) {
            case (Answer.cancelled, Answer.pending):  // cancelled first: the peer's report opened a drop of its own
                cancelledFirst += 1
                #expect(count == 0, "\(initiator)")
            case (Answer.alreadyMatched, Answer.matched):  // matched first: the cancel says so and the mate requests stand
                matchedFirst += 1
                #expect(count == 2, "\(initiator)")
            default:
                Issue.record("\(initiator): cancel \(cancel), report \(report)")
            }
        }
        #expect(cancelledFirst + matchedFirst == pairs.count)
        await harness.stop()
    }

    @Test("each order forced, cancel and report on different instances: cancelled first leaves nothing, matched first keeps both requests")
    func cancelAndMatchInEachOrder() async throws {
        let harness = try await ClusterHarness.start(instances: 3) { $0.dropWindow = .seconds(3_600) }
        try await addUsers(["ci", "cp", "mi", "mp"], harness)
        for (initiator, peer) in [("ci", "cp"), ("mi", "mp")] {
            let opened = try await harness.client(0).send(
                "POST", "/v1/drops", json: ["user_id": .string(initiator), "peer_id": .string(peer), "distance_m": 0.1])
            #expect(Answer(opened) == .pending, "\(initiator): \(opened.text)")
        }
        // Cancel first (instance 1), then the peer's report (instance 2): it finds nothing to match and waits.
        let cancel = try await harness.client(1).send("DELETE", "/v1/users/ci/drop")
        #expect(Answer(cancel) == .cancelled, "\(cancel.text)")
        let lateReport = try await harness.client(2).send("POST", "/v1/drops", json: ["user_id": "cp", "peer_id": "ci", "distance_m": 0.1])
        #expect(Answer(lateReport) == .pending, "\(lateReport.text)")
        #expect(try await mateRequests(of: "ci", harness.client(0)) == 0)
        // Report first (instance 2): it matches; the cancel after it (instance 1) is refused and the requests stand.
        let report = try await harness.client(2).send("POST", "/v1/drops", json: ["user_id": "mp", "peer_id": "mi", "distance_m": 0.1])
        #expect(Answer(report) == .matched, "\(report.text)")
        #expect(report.json?["mate_requests"]?.arrayValue?.count == 2)
        let lateCancel = try await harness.client(1).send("DELETE", "/v1/users/mi/drop")
        #expect(Answer(lateCancel) == .alreadyMatched, "\(lateCancel.text)")
        #expect(lateCancel.errorMessage == "the drop matched already; its mate requests stand")
        #expect(try await mateRequests(of: "mi", harness.client(0)) == 2)
        await harness.stop()
    }

    /// A drop answer as its status and what the body says (the state, or the error code).
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var said: String?
        static let pending = Answer(status: 201, said: "pending")
        static let matched = Answer(status: 200, said: "matched")
        static let cancelled = Answer(status: 200, said: "cancelled")
        static let alreadyMatched = Answer(status: 409, said: "already_matched")

        init(status: Int, said: String?) {
            self.status = status
            self.said = said
        }

        init(_ response: TestHTTPClient.Response) {
            status = response.status
            said = response.errorCode ?? response.json?["state"]?.stringValue
        }

        var description: String { "\(status) \(said ?? "-")" }
    }

    private func mateRequests(of user: String, _ client: TestHTTPClient) async throws -> Int? {
        let requests = try await client.send("GET", "/v1/users/\(user)/mate-requests?role=any")
        return requests.json?["mate_requests"]?.arrayValue?.count
    }

    /// Creates `ids` as users with a profile, spread over the instances.
    private func addUsers(_ ids: [String], _ harness: ClusterHarness) async throws {
        let statuses = try await ClusterHarness.concurrently(ids.count, width: 48) { index in
            try await harness.client(index).send(
                "PUT", "/v1/users/\(ids[index])", json: ["name": .string(ids[index]), "dog_name": "Rex"]
            ).status
        }
        #expect(statuses.allSatisfy { $0 == 201 || $0 == 200 })
    }
}
