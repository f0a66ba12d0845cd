internal import CEvent
import Foundation

extension IOStream {
    /// The peer closed (EOF) or the socket failed: the bytes the peer sent before still belong to the
    /// conversation, so they are delivered first and the close after them, on the next loop turn.
    ///
    /// Two ways libevent would otherwise lose them:
    /// - its TLS layer reports a close from inside the read that found it, before it hands over the
    ///   records that same read decrypted (they reach the input buffer, and the read callback, only when
    ///   the report returns);
    /// - a failed write (the peer closed, and reset because our last bytes went unread) stops reading
    ///   for good, while the peer's last bytes still wait in the kernel.
    ///
    /// Without this, the answers an HTTP/2 server wrote just before closing (say, after its GOAWAY)
    /// were dropped and their requests looked unanswered, so they were sent again.
    func finishReading(then error: IOError) {
        guard pendingClose == nil else { return }
        pendingClose = error
        handleRead()
        loop.execute { [self] in
            guard let error = pendingClose, bev != nil else { return }
            handleRead()
            readWhatTheKernelHolds()
            guard bev != nil else { return }
            fail(error)
        }
    }

    /// Reads what the kernel still holds for this stream straight from the socket (through OpenSSL for
    /// TLS) and hands it to the delegate, up to the first would-block, end or error, and at most 4 MiB
    /// (a peer that only stopped reading could otherwise keep this loop busy).
    private func readWhatTheKernelHolds() {
        guard let bev else { return }
        let ssl = isTLS ? bufferevent_openssl_get_ssl(bev) : nil
        let fd = bufferevent_getfd(bev)
        guard ssl != nil || fd >= 0 else { return }
        var budget = 1 << 22
        withUnsafeTemporaryAllocation(byteCount: 16384, alignment: 1) { buffer in
            while self.bev == bev, budget > 0 {
                let count: Int
                if let ssl {
                    count = Int(SSL_read(ssl, buffer.baseAddress, Int32(buffer.count)))
                } else {
                    count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                }
                guard count > 0 else { break }
                budget -= count
                delegate?.stream(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        }
        if ssl != nil { ERR_clear_error() }
    }
}
