internal import COpenSSL
import Foundation

extension TLSContext {
    /// A new `SSL*` from this context, in connect (client) or accept (server) state.
    ///
    /// For a client with `serverName`: SNI and hostname verification for a DNS name, or IP address
    /// verification for an IP literal (no SNI then, as RFC 6066 requires). The CALLER OWNS the
    /// returned `SSL*` and must free it, e.g. by handing it to libevent with `BEV_OPT_CLOSE_ON_FREE`.
    package func makeSSL(serverName: String?) throws -> OpaquePointer {
        let ssl = try OpenSSLCall.check(SSL_new(handle.raw), "SSL_new")
        guard !isServer else {
            SSL_set_accept_state(ssl)
            return ssl
        }
        SSL_set_connect_state(ssl)
        guard let serverName, !serverName.isEmpty else { return ssl }
        do {
            let host = Self.unbracketed(serverName)
            if Self.isIPLiteral(host) {
                let param = try OpenSSLCall.check(SSL_get0_param(ssl), "SSL_get0_param")
                try OpenSSLCall.check(status: X509_VERIFY_PARAM_set1_ip_asc(param, host), "X509_VERIFY_PARAM_set1_ip_asc")
            } else {
                try OpenSSLCall.check(push_SSL_set_tlsext_host_name(ssl, host) == 1, "SSL_set_tlsext_host_name")
                try OpenSSLCall.check(status: SSL_set1_host(ssl, host), "SSL_set1_host")
            }
        } catch {
            SSL_free(ssl)
            throw error
        }
        return ssl
    }

    /// What the handshake on `ssl` agreed on; call after it has completed.
    package static func sessionInfo(ssl: OpaquePointer) -> TLSSessionInfo {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        var alpn: String?
        if let data, length > 0 {
            alpn = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
        }
        var peer: TLSCertificate?
        if let raw = SSL_get1_peer_certificate(ssl) {
            peer = try? TLSCertificate(handle: X509Handle(taking: raw))
        }
        let version = SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
        return TLSSessionInfo(
            alpn: alpn, peerCertificate: peer, protocolVersion: version,
            verifyResult: Int(SSL_get_verify_result(ssl)))
    }

    /// Drains this thread's OpenSSL error queue into readable lines, oldest first.
    package static func errorQueue() -> [String] {
        OpenSSLCall.errorQueue()
    }

    /// "[::1]" → "::1"; anything else unchanged.
    static func unbracketed(_ host: String) -> String {
        if host.hasPrefix("["), host.hasSuffix("]") {
            return String(host.dropFirst().dropLast())
        }
        return host
    }

    /// True when `host` is an IPv4 or IPv6 address literal.
    package static func isIPLiteral(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}
