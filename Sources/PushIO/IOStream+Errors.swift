internal import CEvent
import Foundation

extension IOStream {
    /// What the event flags `events` of `bev` mean: the TLS errors, EOF, a timeout, DNS or socket errors.
    func describe(events: Int16, bev: OpaquePointer) -> IOError {
        if isTLS, tunnel == nil {
            var messages: [String] = []
            while true {
                let code = bufferevent_get_openssl_error(bev)
                if code == 0 { break }
                messages.append(openSSLErrorText(code))
            }
            if let ssl = bufferevent_openssl_get_ssl(bev) {
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    messages.append("certificate verify: " + String(cString: X509_verify_cert_error_string(verify)))
                }
            }
            if !messages.isEmpty {
                return IOError(.tls, messages.joined(separator: "; "))
            }
        }
        if events & Int16(BEV_EVENT_EOF) != 0 {
            return IOError(connected ? .closed : .connect, connected ? "peer closed the connection" : "closed before connecting")
        }
        if events & Int16(BEV_EVENT_TIMEOUT) != 0 { return IOError(.timeout, "socket timed out") }
        let dnsError = bufferevent_socket_get_dns_error(bev)
        if dnsError != 0 { return IOError(.resolve, String(cString: evutil_gai_strerror(dnsError))) }
        let code = errno
        let text = code != 0 ? String(cString: strerror(code)) : "socket error"
        return IOError(connected ? .broken : .connect, text)
    }
}

/// OpenSSL's text for an error code.
func openSSLErrorText(_ code: UInt) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        ERR_error_string_n(code, buffer.baseAddress, 256)
        return String(cString: buffer.baseAddress!)
    }
}
