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
    /// Regular header fields that many requests share (lowercase names), in order, sent before `headers`:
    /// one array built once and handed to every request that carries the same fields (a retain each,
    /// nothing copied or formatted per request).
    public var sharedHeaders: [(name: String, value: String)]
    /// Regular header fields of this request alone (lowercase names), in order, after `sharedHeaders`.
    public var headers: [(name: String, value: String)]
    /// The body; empty for none. Held as given: requests that carry the same array share its storage.
    public var body: [UInt8]

    /// A request with the given parts.
    public init(
        method: String = "POST", scheme: String = "https", authority: String, path: String,
        sharedHeaders: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.sharedHeaders = sharedHeaders
        self.headers = headers
        self.body = body
    }

    /// The header block, with the fields named in `unindexed` never indexed.
    func headerBlock(unindexed: [String] = []) -> HeaderBlock {
        HeaderBlock(
            method: method, scheme: scheme, authority: authority, path: path, shared: sharedHeaders, fields: headers,
            unindexed: unindexed)
    }
}
