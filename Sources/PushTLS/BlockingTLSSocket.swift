internal import COpenSSL
import Foundation

/// A TLS client session over an already connected, blocking socket: the handshake in `init`, then
/// whole writes and plain reads. For tools and tests that speak raw bytes to a TLS server (hostile-input
/// checks over HTTPS); services use libevent's TLS bufferevents instead. The socket stays the caller's.
///
/// Not Sendable: one thread uses it.
package final class BlockingTLSSocket {
    private let ssl: OpaquePointer

    /// Runs the client handshake on `fd` with `context`, verifying `serverName`; throws why it failed.
    package init(fd: Int32, context: TLSContext, serverName: String?) throws {
        precondition(!context.isServer, "BlockingTLSSocket is a client")
        let ssl = try context.makeSSL(serverName: serverName)
        do {
            try OpenSSLCall.check(status: SSL_set_fd(ssl, fd), "SSL_set_fd")
            try OpenSSLCall.check(status: SSL_connect(ssl), "SSL_connect", "TLS handshake failed")
        } catch {
            SSL_free(ssl)
            throw error
        }
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
    }

    /// Writes all of `bytes`; false when the peer closed or reset the connection first.
    package func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
            guard written > 0 else {
                OpenSSLCall.clearErrors()
                return false
            }
            offset += Int(written)
        }
        return true
    }

    /// Reads what is available into `buffer`: the byte count; 0 when the peer ended the connection (close
    /// notify, a bare EOF or a reset); -1 when the socket's receive timeout passed first.
    package func read(into buffer: inout [UInt8]) -> Int {
        let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
        if count > 0 { return Int(count) }
        let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
        let error = SSL_get_error(ssl, count)
        OpenSSLCall.clearErrors()
        return error == SSL_ERROR_ZERO_RETURN || !timedOut ? 0 : -1
    }
}
