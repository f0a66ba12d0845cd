internal import CEvent
import Foundation

/// Reads and writes that go to the kernel at once, past libevent's buffers, on a connected stream.
///
/// libevent's TLS bufferevent reads one TLS record per readable event and writes only from its write
/// event, which it adds when output arrives and removes once it drained: every answer cost an event-loop
/// iteration, two `epoll_ctl` calls and a write per record. Here the read callback drains the socket
/// (through TLS) before it delivers, and a write goes out at once while nothing else is queued; only what
/// the kernel does not take is left to libevent, which then writes it as before.
///
/// Both stay within libevent's own contract for the TLS session: a write is direct only while libevent's
/// output is empty (so it never interleaves with libevent's writes), is made in chunks of at most one TLS
/// record, and a chunk the kernel does not take (WANT_WRITE) is handed over whole from its first byte, so
/// libevent's retry passes OpenSSL the same bytes (`SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER`, which libevent
/// sets, allows the new address). A read stops at the first would-block, with nothing left in OpenSSL's
/// record buffer, so libevent's next readable event finds the socket as it expects.
extension IOStream {
    /// The largest chunk of one direct TLS write: one record, which libevent's retry (up to 16 KB) covers.
    static let directWriteChunk = 16384

    /// Writes `bytes` now, up to the first would-block or error; returns how many the kernel took.
    func writeDirectly(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var written = 0
        if let ssl = directSSL {
            while written < bytes.count {
                let chunk = min(bytes.count - written, Self.directWriteChunk)
                ERR_clear_error()
                let result = SSL_write(ssl, base + written, Int32(chunk))
                guard result > 0 else {
                    ERR_clear_error()  // would block, or failed: libevent writes (or fails) these bytes again
                    break
                }
                written += Int(result)
            }
        } else if directFD >= 0 {
            while written < bytes.count {
                let result = send(directFD, base + written, bytes.count - written, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                guard result > 0 else { break }
                written += result
            }
        }
        return written
    }

    /// Reads what the kernel holds for this connected stream into `buffer`, up to the first would-block,
    /// the end of the buffer, an end or an error (left for libevent to find and report). Never stops with
    /// decrypted bytes left inside OpenSSL. Returns how many bytes it read.
    func readDirectly(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard connected, tunnel == nil, let base = buffer.baseAddress else { return 0 }
        var count = 0
        if let ssl = directSSL {
            while count < buffer.count {
                ERR_clear_error()
                let result = SSL_read(ssl, base + count, Int32(buffer.count - count))
                guard result > 0 else {
                    ERR_clear_error()
                    break
                }
                count += Int(result)
            }
        } else if directFD >= 0 {
            while count < buffer.count {
                let result = recv(directFD, base + count, buffer.count - count, Int32(MSG_DONTWAIT))
                guard result > 0 else { break }
                count += result
            }
        }
        return count
    }
}

extension EventLoop {
    /// Runs `body` with the loop's read buffer (256 KB, made once per loop), or with a buffer of its own
    /// when the loop's is in use further up the stack. Loop thread only.
    func withReadBuffer<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        preconditionInEventLoop()
        if readBufferInUse {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
            defer { buffer.deallocate() }
            return body(buffer)
        }
        if readBuffer == nil { readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16) }
        readBufferInUse = true
        defer { readBufferInUse = false }
        return body(readBuffer!)
    }

    static let readBufferSize = 256 << 10
}
