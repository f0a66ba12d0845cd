internal import COpenSSL
import PushSync

/// Loads OpenSSL 3's `legacy` provider (RC2, 3DES-in-PKCS#12, ...) once, on first need.
///
/// Old Keychain exports and `openssl pkcs12 -export -legacy` encrypt with RC2-40-CBC, which
/// OpenSSL 3 only decrypts with this provider. Loading any provider explicitly stops the `default`
/// one from loading implicitly, so both are loaded together. They stay loaded for the process.
enum LegacyProvider {
    /// nil until the first attempt; then whether both providers loaded.
    private static let state = PThreadLock<Bool?>(nil)

    /// Loads the providers if that has not been tried yet; returns whether they are available.
    @discardableResult
    static func load() -> Bool {
        state.withLock { loaded in
            if let loaded { return loaded }
            let legacy = OSSL_PROVIDER_load(nil, "legacy")
            let standard = OSSL_PROVIDER_load(nil, "default")
            let success = legacy != nil && standard != nil
            if !success { OpenSSLCall.clearErrors() }
            loaded = success
            return success
        }
    }

    /// Whether a load attempt has already been made.
    static var attempted: Bool {
        state.withLock { $0 != nil }
    }
}
