import Foundation
import PushTLS
import PushTLSTesting
import Testing

@Suite("TLSContext")
struct TLSContextTests {
    let authority: TestCertificateAuthority
    let serverIdentity: TLSIdentity
    let clientIdentity: TLSIdentity

    init() throws {
        authority = try TestCertificateAuthority()
        serverIdentity = try authority.issueServerCertificate().identity()
        clientIdentity = try authority.issueClientCertificate(bundleID: testBundleID, topics: [testBundleID]).identity()
    }

    @Test("client contexts build with each trust source")
    func clientContexts() throws {
        let directory = try TemporaryDirectory()
        let caPath = try directory.write(Array(authority.certificatePEM.utf8), to: "ca.pem")
        for trust in [TLSTrust.system, .caFile(caPath), .caPEM(authority.certificatePEM)] {
            let context = try TLSContext.client(TLSClientConfiguration(identity: clientIdentity, trust: trust))
            #expect(!context.isServer)
            #expect(context.alpn == ["h2"])
        }
        #expect(
            tlsErrorKind { _ = try TLSContext.client(TLSClientConfiguration(trust: .caFile(directory.file("none")))) }
                == .fileMissing)
        #expect(tlsErrorKind { _ = try TLSContext.client(TLSClientConfiguration(trust: .caPEM("junk"))) } == .invalidPEM)
    }

    @Test(
        "server contexts build with each client certificate policy",
        arguments: [ClientCertificatePolicy.none, .request, .require(trust: .system)])
    func serverContexts(policy: ClientCertificatePolicy) throws {
        let context = try TLSContext.server(TLSServerConfiguration(identity: serverIdentity, clientCertificates: policy))
        #expect(context.isServer)
    }

    @Test("makeSSL returns a distinct handle each time")
    func distinctHandles() throws {
        let client = try TLSContext.client(TLSClientConfiguration(trust: .caPEM(authority.certificatePEM)))
        let names: [String?] = ["localhost", "127.0.0.1", "[::1]", nil]
        let handles = try names.map { try client.makeSSL(serverName: $0) }
        #expect(Set(handles.map { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer($0))) }).count == handles.count)
        handles.forEach(TLSContext.freeSSL)
        #expect(TLSContext.errorQueue().isEmpty)
    }

    @Test("in-memory handshake negotiates h2 and verifies both sides", arguments: ["localhost", "127.0.0.1", "::1"])
    func handshake(host: String) throws {
        let server = try TLSContext.server(
            TLSServerConfiguration(
                identity: serverIdentity, clientCertificates: .require(trust: .caPEM(authority.certificatePEM))))
        let client = try TLSContext.client(
            TLSClientConfiguration(
                identity: clientIdentity, trust: .caPEM(authority.certificatePEM), alpn: ["h2", "http/1.1"]))
        let (clientSide, serverSide) = try TLSContext.handshakeInMemory(client: client, server: server, serverName: host)
        #expect(clientSide.alpn == "h2")
        #expect(serverSide.alpn == "h2")
        #expect(clientSide.verifyResult == 0)
        #expect(serverSide.verifyResult == 0)
        #expect(clientSide.protocolVersion == "TLSv1.3")
        #expect(serverSide.peerCertificate?.subjectUID == testBundleID)
        #expect(clientSide.peerCertificate?.commonName == "localhost")
    }

    @Test("a wrong host name or an untrusted CA fails the handshake")
    func verificationFailures() throws {
        let server = try TLSContext.server(TLSServerConfiguration(identity: serverIdentity))
        let client = try TLSContext.client(TLSClientConfiguration(trust: .caPEM(authority.certificatePEM)))
        #expect(throws: TLSError.self) {
            _ = try TLSContext.handshakeInMemory(client: client, server: server, serverName: "example.com")
        }
        let stranger = try TLSContext.client(TLSClientConfiguration(trust: .caPEM(TestCertificateAuthority().certificatePEM)))
        #expect(throws: TLSError.self) {
            _ = try TLSContext.handshakeInMemory(client: stranger, server: server, serverName: "localhost")
        }
        let lenient = try TLSContext.client(TLSClientConfiguration(verifyPeer: false))
        _ = try TLSContext.handshakeInMemory(client: lenient, server: server, serverName: "example.com")
    }

    @Test("a required client certificate is enforced; a requested one is only reported")
    func clientCertificatePolicies() throws {
        let trust = TLSTrust.caPEM(authority.certificatePEM)
        let anonymous = try TLSContext.client(TLSClientConfiguration(trust: trust))
        let strict = try TLSContext.server(
            TLSServerConfiguration(
                identity: serverIdentity,
                clientCertificates: .require(trust: trust)))
        #expect(throws: TLSError.self) {
            _ = try TLSContext.handshakeInMemory(client: anonymous, server: strict, serverName: "localhost")
        }
        let outsider = try TestCertificateAuthority().issueClientCertificate(bundleID: "com.other").identity()
        let requesting = try TLSContext.server(TLSServerConfiguration(identity: serverIdentity, clientCertificates: .request))
        let client = try TLSContext.client(TLSClientConfiguration(identity: outsider, trust: trust))
        let (_, serverSide) = try TLSContext.handshakeInMemory(client: client, server: requesting, serverName: "localhost")
        #expect(serverSide.peerCertificate?.subjectUID == "com.other")
        #expect(serverSide.verifyResult != 0)
    }

    @Test("ALPN falls back to http/1.1 or to none")
    func alpnFallback() throws {
        let server = try TLSContext.server(TLSServerConfiguration(identity: serverIdentity, alpn: ["h2", "http/1.1"]))
        let trust = TLSTrust.caPEM(authority.certificatePEM)
        let http1 = try TLSContext.client(TLSClientConfiguration(trust: trust, alpn: ["http/1.1"]))
        #expect(try TLSContext.handshakeInMemory(client: http1, server: server, serverName: "localhost").client.alpn == "http/1.1")
        let other = try TLSContext.client(TLSClientConfiguration(trust: trust, alpn: ["spdy/3"]))
        #expect(try TLSContext.handshakeInMemory(client: other, server: server, serverName: "localhost").client.alpn == nil)
        let none = try TLSContext.client(TLSClientConfiguration(trust: trust, alpn: []))
        #expect(try TLSContext.handshakeInMemory(client: none, server: server, serverName: "localhost").server.alpn == nil)
    }
}
