internal import COpenSSL

/// Converts ECDSA P-256 signatures between OpenSSL's DER form and JOSE's fixed 64-byte r||s form.
enum ECDSASignature {
    /// Bytes per coordinate on P-256.
    static let coordinateSize = 32

    /// DER `ECDSA-Sig-Value` → r||s, each left-padded to 32 bytes.
    static func jose(fromDER der: [UInt8]) throws -> [UInt8] {
        let signature = try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return try OpenSSLCall.check(d2i_ECDSA_SIG(nil, &cursor, buffer.count), "d2i_ECDSA_SIG")
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var out = [UInt8](repeating: 0, count: 2 * coordinateSize)
        let written = out.withUnsafeMutableBufferPointer { buffer in
            (
                BN_bn2binpad(r, buffer.baseAddress, Int32(coordinateSize)),
                BN_bn2binpad(s, buffer.baseAddress! + coordinateSize, Int32(coordinateSize))
            )
        }
        try OpenSSLCall.check(written.0 == Int32(coordinateSize) && written.1 == Int32(coordinateSize), "BN_bn2binpad")
        return out
    }

    /// r||s (64 bytes) → DER `ECDSA-Sig-Value`; nil when the input has the wrong size.
    static func der(fromJOSE jose: [UInt8]) -> [UInt8]? {
        guard jose.count == 2 * coordinateSize, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = jose.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(coordinateSize), nil) }
        let s = jose.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + coordinateSize, Int32(coordinateSize), nil) }
        // ECDSA_SIG_set0 takes ownership of both numbers on success.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { return nil }
        defer { push_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
