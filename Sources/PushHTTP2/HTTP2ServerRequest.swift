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
    /// A request arrived whole; answer it now or later on the same loop.
    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest)
    /// The connection ended.
    func connectionDidClose(_ connection: HTTP2ServerConnection)
}
