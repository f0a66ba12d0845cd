internal import COpenSSL

/// Process-wide OpenSSL set-up, done once before the first OpenSSL call of this package.
package enum OpenSSLRuntime {
    /// OpenSSL's own exit-time cleanup is turned off: event-loop threads may still be closing TLS
    /// connections while the process exits, and freeing OpenSSL's tables under them crashes.
    private static let initialized: Bool = {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
        OPENSSL_init_ssl(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
        return true
    }()

    /// Runs the one-time set-up; cheap after the first call.
    package static func ensureInitialized() { _ = initialized }
}
