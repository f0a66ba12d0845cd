internal import COpenSSL

/// HMAC-SHA256 through OpenSSL's one-shot `HMAC` (webhook signatures).
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    public static func authenticationCode(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        OpenSSLRuntime.ensureInitialized()
        let key = Array(key)
        let message = Array(message)
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { input in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), input.baseAddress, input.count, &code, &length)
            }
        }
        // HMAC with SHA-256 fails only when OpenSSL cannot allocate; nothing sensible can go on.
        precondition(result != nil && length == 32, "HMAC(SHA-256) failed")
        return code
    }

    /// Lower-case hex of the HMAC-SHA256 of `message` under `key`.
    public static func hex(key: some Collection<UInt8>, message: some Collection<UInt8>) -> String {
        authenticationCode(key: key, message: message).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }
}
