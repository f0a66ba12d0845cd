import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import Testing

/// `outbox.max_in_flight` bounds the rows an instance has claimed and not settled (sent, or answered with the
/// outcome not yet committed): what a kill leaves to be sent again, so the duplicates per kill.
@Suite("The outbox's in-flight cap")
struct InFlightCapTests {
    @Test("max_in_flight 100: with APNs holding every answer, 100 go out and the rest stay queued")
    func defaultCapHoldsUnsettledRows() async throws {
        let harness = try await ServiceHarness.start(configure: { $0.maxInFlight = 100 })
        _ = harness.mock.addRule(MockAPNSRule(answer: .accept, delay: .seconds(3_600)))
        let tokens = (0..<300).map { _ in ServiceHarness.randomToken() }
        let posted = try await harness.client.send("POST", "/v1/pushes", json: ["tokens": .array(tokens.map { .string($0) }), "alert": "hi"])
        #expect(posted.status == 202, "\(posted.text)")
        let pushID = try #require(posted.json?["push_id"]?.stringValue)
        // The mock records each request on arrival and holds its answer: 100 records mean 100 rows sent.
        #expect(await harness.mock.waitForRecords(count: 100, timeout: .seconds(60)) != nil)
        let status = try await harness.client.send("GET", "/v1/pushes/\(pushID)")
        let states = status.json?["notifications"]?.arrayValue?.compactMap { $0["state"]?.stringValue } ?? []
        #expect(states.count == 300, "\(status.text.prefix(300))")
        #expect(states.filter { $0 == "in_flight" }.count == 100)
        #expect(states.filter { $0 == "queued" }.count == 200)
        #expect(harness.mock.records().count == 100)
        harness.mock.stop()
        await harness.stop()
    }
}
