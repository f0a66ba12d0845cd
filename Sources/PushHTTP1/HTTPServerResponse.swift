/// An HTTP response: what the HTTP/1.1 server sends back with an `HTTPResponder`.
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

    /// The first value of header `name` (names compared as given; HTTP/2 names are lowercase).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}
