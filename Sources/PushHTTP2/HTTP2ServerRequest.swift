/// One request a server connection received, complete with its body.
public struct HTTP2ServerRequest: Sendable {
    /// The stream it arrived on; answer with ``HTTP2ServerConnection/respond(to:status:headers:body:)``.
    public let streamID: Int32
    /// `:method`.
    public var method: String = ""
    /// `:path`.
    public var path: String = ""
    /// `:scheme`.
    public var scheme: String = ""
    /// `:authority`.
    public var authority: String = ""
    /// Regular header fields in arrival order; repeated names stay repeated.
    public var headers: [(name: String, value: String)] = []
    /// The body.
    public var body: [UInt8] = []

    /// An empty request on `streamID`.
    public init(streamID: Int32) { self.streamID = streamID }

    /// The first value of header `name` (lowercase).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// How many times header `name` appears.
    public func count(of name: String) -> Int {
        headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }
}

/// Serves the requests of one server connection; called on the connection's loop thread.
public protocol HTTP2ServerHandler: AnyObject {
    /// The header fields (lowercase names, pseudo-header fields such as `:path` included) the handler
    /// needs of each request, or nil (the default) for whole requests. When set, requests arrive through
    /// ``connection(_:didReceiveFields:)`` with only those values, as bytes, and the rest of each request
    /// (other fields, the body) is dropped as it is read: no strings or arrays are made per request. Read
    /// once, when the connection's HTTP/2 session starts.
    var requestFields: [String]? { get }
    /// A request arrived whole; answer it now or later on the same loop.
    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest)
    /// A request arrived whole, for a handler with ``requestFields``: the values it asked for (valid
    /// during the call only). Answer it now or later on the same loop.
    func connection(_ connection: HTTP2ServerConnection, didReceiveFields fields: HTTP2ServerRequestFields)
    /// The connection ended.
    func connectionDidClose(_ connection: HTTP2ServerConnection)
    /// Bytes went to the socket: `total` is ``HTTP2ServerConnection/bytesWritten`` after them, so every
    /// answer given before this call ends at or before `total` (unless flow control held back its body).
    func connection(_ connection: HTTP2ServerConnection, didWrite total: Int)
}

extension HTTP2ServerHandler {
    /// Whole requests.
    public var requestFields: [String]? { nil }
    /// Not called for a handler without ``requestFields``.
    public func connection(_ connection: HTTP2ServerConnection, didReceiveFields fields: HTTP2ServerRequestFields) {}
    /// Nothing to do by default.
    public func connection(_ connection: HTTP2ServerConnection, didWrite total: Int) {}
}
