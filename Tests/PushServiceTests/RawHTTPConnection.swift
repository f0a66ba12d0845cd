import Foundation
import PushTLS
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A TCP (or TLS) connection to the service for requests URLSession cannot make: invalid UTF-8 on the wire,
/// a body sent slowly or never, a 10 MB upload. Reads block, bounded by `SO_RCVTIMEO` as a safety net, on a
/// thread of their own: a read blocking one of the cooperative pool's threads (two on a two-core machine)
/// would starve the service's handlers that should answer it. One task uses a connection at a time, which is
/// why the class may cross to that thread (`@unchecked Sendable`).
final class RawHTTPConnection: @unchecked Sendable {
    private let fd: Int32
    private var tls: BlockingTLSSocket?

    /// Connects to 127.0.0.1:`port`; with `tls`, runs a TLS handshake (verifying 127.0.0.1) before any byte.
    init(port: Int, receiveTimeout seconds: Int = 30, tls context: TLSContext? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let context {
            do {
                tls = try BlockingTLSSocket(fd: fd, context: context, serverName: "127.0.0.1")
            } catch {
                close(fd)
                throw error
            }
        }
    }

    deinit {
        tls = nil
        close(fd)
    }

    /// Writes all of `bytes`; false when the peer closed or reset the connection first.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        if let tls { return tls.write(bytes) }
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// One read from the socket or the TLS session: bytes read, 0 at the end, negative on an error.
    private func receive(into buffer: inout [UInt8]) -> Int {
        if let tls { return tls.read(into: &buffer) }
        return buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Reads until the peer closes the connection (or the safety timeout passes: `timedOut` is then true).
    func readToEnd() async -> (bytes: [UInt8], timedOut: Bool) {
        await offPool { self.blockingReadToEnd() }
    }

    /// Reads one whole response whose head says `Content-Length` (the connection may stay open).
    func readResponse() async -> (status: Int, body: [UInt8])? {
        await offPool { self.blockingReadResponse() }
    }

    private func blockingReadToEnd() -> (bytes: [UInt8], timedOut: Bool) {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = receive(into: &buffer)
            if count > 0 {
                result += buffer[0..<count]
                continue
            }
            if count == 0 || errno == ECONNRESET { return (result, false) }
            if errno == EINTR { continue }
            return (result, true)
        }
    }

    private func blockingReadResponse() -> (status: Int, body: [UInt8])? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                let length =
                    head.split(separator: "\r\n").compactMap { line -> Int? in
                        let parts = line.split(separator: ":", maxSplits: 1)
                        guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                        return Int(parts[1].trimmingCharacters(in: .whitespaces))
                    }.first ?? 0
                if data.count - end.upperBound >= length {
                    return (status, Array(data[end.upperBound..<(end.upperBound + length)]))
                }
            }
            let count = receive(into: &buffer)
            if count <= 0 { return nil }
            data += buffer[0..<count]
        }
    }

    /// A whole HTTP/1.1 request with the service's key and `body` as is.
    static func request(
        _ method: String, _ path: String, body: [UInt8], apiKey: String = ServiceHarness.apiKey,
        close: Bool = false
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(apiKey)\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        if close { head += "Connection: close\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}
