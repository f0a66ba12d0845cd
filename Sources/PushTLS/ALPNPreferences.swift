internal import COpenSSL

/// A list of ALPN protocol names, most preferred first, and the server-side selection callback.
final class ALPNPreferences: Sendable {
    /// Each protocol name as bytes.
    let protocols: [[UInt8]]

    /// Validates the names (1–255 bytes each).
    init(_ names: [String]) throws {
        protocols = names.map { Array($0.utf8) }
        for (name, bytes) in zip(names, protocols) where bytes.isEmpty || bytes.count > 255 {
            throw TLSError(.openSSL, "invalid ALPN protocol name \"\(name)\"")
        }
    }

    /// The length-prefixed list the ALPN extension carries.
    var wireFormat: [UInt8] {
        protocols.flatMap { [UInt8($0.count)] + $0 }
    }

    /// The first of our protocols the client offered, as a range of `offered`; nil when none is.
    func choose(from offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var candidates: [Range<Int>] = []
        var index = 0
        while index < offered.count {
            let length = Int(offered[index])
            let start = index + 1
            guard length > 0, start + length <= offered.count else { break }
            candidates.append(start..<(start + length))
            index = start + length
        }
        for wanted in protocols {
            if let match = candidates.first(where: { offered[$0].elementsEqual(wanted) }) {
                return match
            }
        }
        return nil
    }

    /// The SSL_CTX ex_data slot that keeps an `ALPNPreferences` alive as long as its context.
    private static let exDataIndex: Int32 = CRYPTO_get_ex_new_index(
        CRYPTO_EX_INDEX_SSL_CTX, 0, nil, nil, nil,
        { _, pointer, _, _, _, _ in
            if let pointer {
                Unmanaged<ALPNPreferences>.fromOpaque(pointer).release()
            }
        })

    /// Installs the selection callback on a server context. The context holds a reference to
    /// `self` (released when OpenSSL frees the context), so SSLs outliving `TLSContext` stay safe.
    func install(on context: OpaquePointer) throws {
        let pointer = Unmanaged.passRetained(self).toOpaque()
        guard Self.exDataIndex >= 0, SSL_CTX_set_ex_data(context, Self.exDataIndex, pointer) == 1 else {
            Unmanaged<ALPNPreferences>.fromOpaque(pointer).release()
            try OpenSSLCall.check(false, "SSL_CTX_set_ex_data")
            return
        }
        SSL_CTX_set_alpn_select_cb(
            context,
            { _, out, outLength, input, inputLength, argument in
                guard let out, let outLength, let input, let argument else { return SSL_TLSEXT_ERR_NOACK }
                let preferences = Unmanaged<ALPNPreferences>.fromOpaque(argument).takeUnretainedValue()
                let offered = UnsafeBufferPointer(start: input, count: Int(inputLength))
                guard let match = preferences.choose(from: offered) else { return SSL_TLSEXT_ERR_NOACK }
                out.pointee = input + match.lowerBound
                outLength.pointee = UInt8(match.count)
                return SSL_TLSEXT_ERR_OK
            }, pointer)
    }
}
