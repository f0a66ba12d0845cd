internal import COpenSSL

/// Owns one in-memory OpenSSL `BIO`: bytes go in for parsing, or come out after writing.
final class MemoryBIO {
    /// The `BIO*`, freed in `deinit`.
    let raw: OpaquePointer

    /// An empty memory BIO to write into.
    init() throws {
        raw = try OpenSSLCall.check(BIO_new(BIO_s_mem()), "BIO_new")
    }

    /// A memory BIO holding a copy of `bytes`, ready to be read.
    convenience init(bytes: [UInt8]) throws {
        try self.init()
        if bytes.isEmpty { return }
        let written = bytes.withUnsafeBytes { buffer in
            BIO_write(raw, buffer.baseAddress, Int32(buffer.count))
        }
        try OpenSSLCall.check(written == Int32(bytes.count), "BIO_write")
    }

    /// A memory BIO holding the UTF-8 bytes of `text`.
    convenience init(text: String) throws {
        try self.init(bytes: Array(text.utf8))
    }

    deinit {
        BIO_free(raw)
    }

    /// Everything written so far, as bytes.
    var bytes: [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>?
        let count = push_BIO_get_mem_data(raw, &pointer)
        guard count > 0, let pointer else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(count)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(count)))
        }
    }

    /// Everything written so far, as UTF-8 text (PEM output).
    var text: String {
        String(decoding: bytes, as: UTF8.self)
    }
}
