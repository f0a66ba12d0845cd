extension HTTP2ClientConnection {
    /// One request on its way: queued for a stream, then open, collecting the response (loop thread only).
    final class Pending {
        let handle: Int64
        let request: HTTP2Request
        let completion: (HTTP2Result) -> Void
        var status = 0
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        init(handle: Int64, request: HTTP2Request, completion: @escaping (HTTP2Result) -> Void) {
            self.handle = handle
            self.request = request
            self.completion = completion
        }
    }
}
