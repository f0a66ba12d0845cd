import Foundation

/// One HTTP/1.1 request as the server read it: no C types, safe to hand to any thread.
public struct HTTPServerRequest: Sendable {
    /// The method in upper case ("GET", "POST", …).
    public var method: String
    /// The path without the query, still percent-encoded (e.g. "/v1/users/u1").
    public var path: String
    /// The query items in order; names and values percent-decoded.
    public var query: [(name: String, value: String)]
    /// The request headers in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body bytes (empty when there is none).
    public var body: [UInt8]
    /// The client's address as `host:port` (empty when unknown), for logs.
    public var remoteAddress: String

    /// Creates a request (the server builds these; tests may too).
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.remoteAddress = remoteAddress
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The first query item named `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
