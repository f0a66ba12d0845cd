import APNSCore
import Foundation
import Testing

@testable import APNSMock

@Suite("Mock APNs programmable handler")
struct MockAPNSHandlerTests {
    /// A closure kept directly in a generic Mutex used to gain one re-abstraction thunk per request,
    /// overflowing the stack after about 20,000 requests; the handler must stay the same closure.
    @Test("100,000 decisions through a handler keep a flat stack")
    func manyDecisions() throws {
        let (configuration, _) = try MockAPNSServer.makeForTesting(bundleID: "com.example.app")
        var withHandler = configuration
        withHandler.handler = MockAPNSHandlers.rejectAll(.badDeviceToken)
        let core = MockAPNSCore(configuration: withHandler)
        let context = MockAPNSConnectionContext(id: 1, clientCertificate: nil, environment: .development)
        let request = MockAPNSRequest(
            path: "/3/device/" + String(repeating: "ab", count: 32),
            headers: [("apns-topic", "com.example.app")], payload: Array(#"{"aps":{}}"#.utf8))
        var rejected = 0
        for _ in 0..<100_000 where core.decide(request, on: context).rejection?.reason == .badDeviceToken {
            rejected += 1
        }
        #expect(rejected == 100_000)
    }
}

@Suite("Mock APNs record limit")
struct MockAPNSRecordLimitTests {
    @Test("with maxRecords exactly the newest records are shown and counters keep counting")
    func boundedRecords() throws {
        let recorder = MockAPNSRecorder(maxRecords: 100)
        for index in 0..<1_000 {
            recorder.record(
                MockAPNSRecord(
                    token: String(format: "%064x", index), topic: "com.example.app", headers: [], payload: [],
                    clientCertificateUID: nil, apnsID: APNSID.generate(), outcome: .accepted(apnsID: "", uniqueID: nil),
                    connectionID: 1, time: Date()))
        }
        let records = recorder.records
        #expect(records.count == 100)
        #expect(records.first?.token == String(format: "%064x", 900))
        #expect(records.last?.token == String(format: "%064x", 999))
        #expect(recorder.counters.accepted == 1_000)
    }
}
