/// A response to send back with an `HTTPResponder`.
public struct HTTPServerResponse: Sendable {
    /// The status code (e.g. 200).
    public var status: Int
    /// Headers to add; `Content-Length` and `Date` are added by the server.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
