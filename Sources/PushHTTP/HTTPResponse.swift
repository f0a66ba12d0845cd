/// An HTTP response of either protocol version: what the HTTP/1.1 server sends back through an
/// `HTTPResponder`, what the HTTP/1.1 client receives, and what an HTTP/2 client request ends with.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code (e.g. 200; `:status` in HTTP/2).
    public var status: Int
    /// Regular header fields, in order. HTTP/2 names are lowercase. The HTTP/1.1 server adds
    /// `Content-Length` and `Date` itself.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name`; names compare without regard to ASCII case, as HTTP says.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Two responses are equal when status, header fields (in order) and body are.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.count == rhs.headers.count
            && zip(lhs.headers, rhs.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive equality of two field names, without allocating.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { Self.folded($0) == Self.folded($1) }
    }

    private static func folded(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
