internal import CEvent
import PushHTTP

extension HTTPServer {
    /// Copies method, path, query, headers and body out of an `evhttp_request` (loop thread only).
    static func makeRequest(_ request: OpaquePointer) -> HTTPServerRequest {
        var path = "/"
        var query: [(name: String, value: String)] = []
        if let uri = evhttp_request_get_evhttp_uri(request) {
            if let rawPath = evhttp_uri_get_path(uri), rawPath.pointee != 0 { path = String(cString: rawPath) }
            if let rawQuery = evhttp_uri_get_query(uri) { query = parseQuery(String(cString: rawQuery)) }
        }
        let headers = inputHeaders(of: request)
        var body: [UInt8] = []
        if let buffer = evhttp_request_get_input_buffer(request) {
            let length = evbuffer_get_length(buffer)
            if length > 0 {
                body = [UInt8](unsafeUninitializedCapacity: length) { raw, count in
                    count = Int(evbuffer_copyout(buffer, raw.baseAddress, length))
                    if count < 0 { count = 0 }
                }
            }
        }
        return HTTPServerRequest(
            method: methodName(evhttp_request_get_command(request)), path: path,
            query: query, headers: headers, body: body, remoteAddress: peer(of: request))
    }

    /// `host:port` of the connection the request came on.
    private static func peer(of request: OpaquePointer) -> String {
        guard let connection = evhttp_request_get_connection(request) else { return "" }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        guard let address else { return "" }
        return "\(String(cString: address)):\(port)"
    }

    private static func methodName(_ command: evhttp_cmd_type) -> String {
        switch command {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PATCH: "PATCH"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_TRACE: "TRACE"
        case EVHTTP_REQ_CONNECT: "CONNECT"
        default: "UNKNOWN"
        }
    }

    /// Splits `a=1&b=x%20y` into decoded pairs (`+` counts as a space).
    static func parseQuery(_ text: String) -> [(name: String, value: String)] {
        FormURLEncoding.pairs(text.utf8)
    }
}

/// The header fields libevent parsed from what came in on `request` (a request the server received, or the
/// response to one the client sent), in order.
func inputHeaders(of request: OpaquePointer) -> [(name: String, value: String)] {
    var headers: [(name: String, value: String)] = []
    guard let input = evhttp_request_get_input_headers(request) else { return headers }
    var entry = input.pointee.tqh_first
    while let current = entry {
        if let key = current.pointee.key, let value = current.pointee.value {
            headers.append((String(cString: key), String(cString: value)))
        }
        entry = current.pointee.next.tqe_next
    }
    return headers
}
