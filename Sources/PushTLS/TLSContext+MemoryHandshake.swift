internal import COpenSSL

extension TLSContext {
    /// Frees an `SSL*` from `makeSSL` that was never handed to an owner such as libevent.
    package static func freeSSL(_ ssl: OpaquePointer) {
        SSL_free(ssl)
    }

    /// Runs a complete handshake between a client and a server context over an in-memory BIO pair,
    /// with no sockets or threads, and reports what each side saw. For tests and diagnostics.
    package static func handshakeInMemory(
        client: TLSContext, server: TLSContext, serverName: String?
    ) throws -> (client: TLSSessionInfo, server: TLSSessionInfo) {
        let clientSSL = try client.makeSSL(serverName: serverName)
        defer { SSL_free(clientSSL) }
        let serverSSL = try server.makeSSL(serverName: nil)
        defer { SSL_free(serverSSL) }
        var clientBIO: OpaquePointer?
        var serverBIO: OpaquePointer?
        try OpenSSLCall.check(status: BIO_new_bio_pair(&clientBIO, 0, &serverBIO, 0), "BIO_new_bio_pair")
        // Each SSL now owns its end of the pair.
        SSL_set_bio(clientSSL, clientBIO, clientBIO)
        SSL_set_bio(serverSSL, serverBIO, serverBIO)

        var clientDone = false
        var serverDone = false
        for _ in 0..<64 where !(clientDone && serverDone) {
            if !clientDone { clientDone = try step(clientSSL, side: "client") }
            if !serverDone { serverDone = try step(serverSSL, side: "server") }
        }
        try OpenSSLCall.check(clientDone && serverDone, "SSL_do_handshake", "the in-memory handshake did not finish")
        // TLS 1.3 sends session tickets after the handshake; let the client read them.
        var scratch = [UInt8](repeating: 0, count: 16)
        _ = SSL_read(clientSSL, &scratch, Int32(scratch.count))
        OpenSSLCall.clearErrors()
        return (sessionInfo(ssl: clientSSL), sessionInfo(ssl: serverSSL))
    }

    /// One handshake step; true when finished, false when it waits for the peer.
    private static func step(_ ssl: OpaquePointer, side: String) throws -> Bool {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return true }
        let reason = SSL_get_error(ssl, result)
        if reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE { return false }
        let verify = SSL_get_verify_result(ssl)
        let detail = verify == Int(X509_V_OK) ? "" : ": " + String(cString: X509_verify_cert_error_string(verify))
        try OpenSSLCall.check(false, "SSL_do_handshake", "\(side) handshake failed\(detail)")
        return false
    }
}
