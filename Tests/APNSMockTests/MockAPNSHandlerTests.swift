@testable import APNSMock
import APNSCore
import PushTLS
import Testing

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
        let request = MockAPNSRequest(path: "/3/device/" + String(repeating: "ab", count: 32),
                                      headers: [("apns-topic", "com.example.app")], payload: Array(#"{"aps":{}}"#.utf8))
        var rejected = 0
        for _ in 0..<100_000 where core.decide(request, on: context).rejection?.reason == .badDeviceToken {
            rejected += 1
        }
        #expect(rejected == 100_000)
    }
}
