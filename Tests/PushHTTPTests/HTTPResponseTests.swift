import PushHTTP
import Testing

/// The one response type of both HTTP versions.
@Suite("HTTPResponse")
struct HTTPResponseTests {
    @Test("header names match without regard to ASCII case; the first field of a name wins")
    func headerLookup() {
        let response = HTTPResponse(status: 200, headers: [("apns-id", "A"), ("Content-Type", "text/plain"), ("APNS-ID", "B")])
        #expect(response.header("apns-id") == "A")
        #expect(response.header("APNS-Id") == "A")
        #expect(response.header("content-type") == "text/plain")
        #expect(response.header("content-typ") == nil)
        #expect(response.header("retry-after") == nil)
    }

    @Test("equality covers status, every field in order and the body")
    func equality() {
        let response = HTTPResponse(status: 410, headers: [("a", "1"), ("b", "2")], body: [1, 2])
        #expect(response == HTTPResponse(status: 410, headers: [("a", "1"), ("b", "2")], body: [1, 2]))
        #expect(response != HTTPResponse(status: 400, headers: [("a", "1"), ("b", "2")], body: [1, 2]))
        #expect(response != HTTPResponse(status: 410, headers: [("b", "2"), ("a", "1")], body: [1, 2]))
        #expect(response != HTTPResponse(status: 410, headers: [("a", "1")], body: [1, 2]))
        #expect(response != HTTPResponse(status: 410, headers: [("a", "1"), ("b", "2")], body: [1]))
    }
}
