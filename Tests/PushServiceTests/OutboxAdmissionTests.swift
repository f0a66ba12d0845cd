import APNSCore
import APNSMock
import Foundation
import JSON
import PushStore
import PushSync
import TestSupport
import Testing

@testable import PushService

@Suite("outbox admission")
struct OutboxAdmissionTests {
    static func push(_ count: Int) -> JSONValue {
        ["tokens": .array((0..<count).map { _ in .string(ServiceHarness.randomToken()) }), "alert": "walk?", "environment": "development"]
    }

    @Test(
        "a flood while APNs refuses everything stops at the bound: 503 outbox_full with Retry-After, nothing stored; draining re-opens"
    )
    func floodStopsAtTheBound() async throws {
        let down = PThreadLock(true)
        let logs = LineWaiter()
        let harness = try await ServiceHarness.start(
            logger: ServiceLogger(level: .debug, sink: { logs.append($0) }),
            configure: {
                $0.outboxBound.maxPending = 100
                $0.outboxBound.refresh = .zero
                $0.retryBaseDelay = .milliseconds(20)
                $0.retryMaxDelay = .milliseconds(200)
                $0.retryMaxAttempts = 10_000
            },
            configureMock: {
                // APNs answers 503 to everything while `down`: every row stays pending, retried.
                $0.handler = { _ in down.withLock { $0 } ? .reject(.serviceUnavailable) : nil }
            })
        let client = harness.client
        var statuses: [Int] = []
        for _ in 0..<10 {
            let response = try await client.send("POST", "/v1/pushes", json: Self.push(30))
            statuses.append(response.status)
            if response.status != 202 {
                #expect(response.status == 503)
                #expect(response.errorCode == "outbox_full", "\(response.text)")
                #expect(response.headers["retry-after"] == "5")
            }
        }
        // 3 × 30 rows fit under 100; the fourth push would pass it, and so would every one after.
        #expect(statuses == [202, 202, 202] + Array(repeating: 503, count: 7))
        let metrics = try await client.send("GET", "/metrics")
        #expect(metrics.text.contains("push_outbox_depth 90"), "nothing of the refused pushes is stored")
        #expect(metrics.text.contains(#"push_outbox_refused_total{app="",limit="rows"} 7"#))

        // APNs is back: the outbox drains, and pushes are taken again.
        down.withLock { $0 = false }
        #expect(await logs.waitFor { $0.filter { $0.contains("push.accepted") }.count >= 90 })
        // Counts are read again beside the pushes (a push never waits for the read): a push is refused, with
        // nothing stored, until the first read after the drain lands, and taken from then on.
        var refusedMeanwhile = 0
        var reopened = try await client.send("POST", "/v1/pushes", json: Self.push(30))
        while reopened.status == 503 && reopened.errorCode == "outbox_full" && refusedMeanwhile < 1_000 {
            refusedMeanwhile += 1
            await Task.yield()
            reopened = try await client.send("POST", "/v1/pushes", json: Self.push(30))
        }
        #expect(reopened.status == 202, "\(reopened.text)")
        let after = try await client.send("POST", "/v1/pushes", json: Self.push(1))
        #expect(after.status == 202, "taken from then on: \(after.text)")
        await harness.stop()
    }

    @Test("the per-app row bound and the byte bounds refuse a push whole and count only what was taken")
    func perAppAndBytes() async throws {
        var bound = OutboxBound()
        bound.maxPending = 0
        bound.maxPendingPerApp = 50
        bound.maxPendingBytes = 10_000
        bound.maxPendingBytesPerApp = 0
        let admission = OutboxAdmission(bound: bound, apps: ["sniffmeet", "dogwalk"])
        #expect(admission.admit(app: 0, rows: 40, payloadBytes: 100) == nil)
        admission.finished(app: 0, rows: 40, stored: true)
        #expect(admission.admit(app: 0, rows: 11, payloadBytes: 100) == .rows(app: "sniffmeet", pending: 40, limit: 50))
        // Another app has room of its own, until the bytes of the whole outbox run out: 4,000 pending.
        #expect(admission.admit(app: 1, rows: 40, payloadBytes: 100) == nil)
        #expect(admission.admit(app: 1, rows: 10, payloadBytes: 300) == .bytes(app: nil, pending: 8_000, limit: 10_000))
        // Rows given back (not stored) are no longer counted.
        admission.finished(app: 1, rows: 40, stored: false)
        #expect(admission.pendingRows == ["sniffmeet": 40, "dogwalk": 0, "": 0])
        #expect(admission.admit(app: 1, rows: 10, payloadBytes: 300) == nil)
    }
}
