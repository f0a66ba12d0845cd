/// One HTTP/2 request a client sends.
public struct HTTP2Request: Sendable {
    /// `:method`.
    public var method: String
    /// `:scheme`.
    public var scheme: String
    /// `:authority`.
    public var authority: String
    /// `:path`.
    public var path: String
    /// Regular header fields (lowercase names), in order.
    public var headers: [(name: String, value: String)]
    /// The body; empty for none.
    public var body: [UInt8]

    /// A request with the given parts.
    public init(
        method: String = "POST", scheme: String = "https", authority: String, path: String,
        headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The header block, with the fields named in `unindexed` never indexed.
    func headerBlock(unindexed: [String] = []) -> HeaderBlock {
        HeaderBlock(method: method, scheme: scheme, authority: authority, path: path, fields: headers, unindexed: unindexed)
    }
}
