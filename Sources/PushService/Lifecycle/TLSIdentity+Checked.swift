import PushTLS

extension TLSIdentity {
    /// The identity `load` reads, checked to be within its validity period. Each failure is one
    /// configuration line about `what` (e.g. "APNs certificate /etc/push/app.p12"): the one `explain` gives
    /// for the TLS error's kind, else "has expired or is not yet valid" or "cannot be used" with the cause.
    static func checked(
        _ what: String, explain: (TLSError.Kind) -> String?, _ load: () throws -> TLSIdentity
    ) throws(ConfigurationError) -> TLSIdentity {
        do {
            let identity = try load()
            try identity.checkNotExpired()
            return identity
        } catch let error as TLSError {
            if let line = explain(error.kind) { throw ConfigurationError(line) }
            if error.kind == .expiredCertificate { throw ConfigurationError("\(what) has expired or is not yet valid") }
            throw ConfigurationError("\(what) cannot be used: \(error.message)")
        } catch {
            throw ConfigurationError("\(what) cannot be used: \(error)")
        }
    }
}
