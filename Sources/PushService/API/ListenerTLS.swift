import PushHTTP1
import PushTLS

/// Builds the REST listener's TLS context from `PushServiceConfiguration.TLSListenerSettings`.
enum ListenerTLS {
    /// A server context for the configured certificate and key (TLS 1.2+, AEAD suites, ALPN `http/1.1`),
    /// requiring client certificates from `clientCAPath` when set. Each problem is one clear line.
    static func context(_ settings: PushServiceConfiguration.TLSListenerSettings) throws(ConfigurationError) -> TLSContext {
        guard let certificate = settings.certificatePath, let key = settings.keyPath else {
            throw ConfigurationError("TLS needs both a certificate and a key: set tls.cert and tls.key (or --tls-cert and --tls-key)")
        }
        let identity = try TLSIdentity.checked(
            "TLS certificate \(certificate)",
            explain: { kind in
                switch kind {
                case .fileMissing: "TLS certificate \(certificate) or key \(key) does not exist or cannot be read"
                case .keyMismatch: "TLS key \(key) does not match the certificate \(certificate)"
                default: nil
                }
            }
        ) { try TLSIdentity(certificatePEMPath: certificate, keyPEMPath: key) }
        var configuration = TLSServerConfiguration(identity: identity, alpn: ["http/1.1"])
        if let clientCA = settings.clientCAPath {
            configuration.clientCertificates = .require(trust: .caFile(clientCA))
        }
        do {
            return try TLSContext.server(configuration)
        } catch {
            throw ConfigurationError("TLS listener cannot be set up (client CA \(settings.clientCAPath ?? "none")): \(error)")
        }
    }

    /// Reads the certificate, key and client CA again and hands them to `tls` for new connections; a file
    /// that cannot be used leaves the old ones in place and throws why. Both outcomes are logged.
    static func reload(
        _ tls: HTTPServerTLS, _ settings: PushServiceConfiguration.TLSListenerSettings,
        logger: ServiceLogger
    ) throws(ConfigurationError) {
        do {
            tls.replace(with: try context(settings))
            logger.info("tls.reloaded", [("certificate", settings.certificatePath ?? "")])
        } catch {
            logger.error("tls.reload_failed", [("error", error.message)])
            throw error
        }
    }
}
