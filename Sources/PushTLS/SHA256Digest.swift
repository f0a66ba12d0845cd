internal import COpenSSL

/// SHA-256 through OpenSSL's one-shot `EVP_Digest`.
public enum SHA256Digest {
    /// The 32-byte SHA-256 of `bytes`.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OpenSSLRuntime.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok =
            bytes.withContiguousStorageIfAvailable { input in
                EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
            }
            ?? Array(bytes).withUnsafeBufferPointer { input in
                EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
            }
        // EVP_Digest with SHA-256 fails only when OpenSSL cannot allocate; nothing sensible can go on.
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return digest
    }

    /// Lower-case hex of the SHA-256 of `text`'s UTF-8 bytes (what `sha256sum` prints).
    public static func hex(of text: String) -> String {
        hash(Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }
}
