import EmbeddedAPNS
import Foundation
import JSON
import PushChaos
import PushService
import PushTLSTesting
import TestSupport
import Testing

@Suite("TLS on the REST listener: curl, client certificates, protocol floor, reload")
struct ListenerTLSTests {
    static func credentials() throws -> TestCredentialFiles {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listener-tls-\(UUID().uuidString)").path
        return try TestCredentialFiles.write(to: directory, bundleID: ServiceHarness.topic, password: "pw")
    }

    static func tlsHarness(_ files: TestCredentialFiles, clientCA: Bool = false) async throws -> ServiceHarness {
        try await ServiceHarness.start { configuration in
            configuration.tls = .init(
                certificatePath: files.serverCertificatePath, keyPath: files.serverKeyPath,
                clientCAPath: clientCA ? files.caCertificatePath : nil)
        }
    }

    /// `curl` over HTTPS with the test key: (exit status, HTTP status or 0, output: the body or curl's
    /// error, then the status on a line of its own).
    static func curl(_ port: Int, _ path: String, _ extra: [String]) async throws -> (exit: Int32, status: Int, output: String) {
        let result = try await ToolProcess.run(
            "curl",
            [
                "-sS", "-w", "\n%{http_code}", "--max-time", "20",
                "-H", "Authorization: Bearer \(ServiceHarness.apiKey)",
            ]
                + extra + ["https://127.0.0.1:\(port)\(path)"])
        let status = Int(result.output.suffix(3)) ?? 0
        return (result.status, status, result.output)
    }

    /// The JSON body of a `curl` answer (its output without the status line).
    static func json(_ answer: (exit: Int32, status: Int, output: String)) -> JSONValue? {
        guard let end = answer.output.lastIndex(of: "\n") else { return nil }
        return try? JSONValue.parse(Array(answer.output[..<end].utf8))
    }

    @Test("curl --cacert gets JSON answers over HTTPS; without the CA it refuses the certificate; plain HTTP is refused")
    func curlWithCA() async throws {
        let files = try Self.credentials()
        let harness = try await Self.tlsHarness(files)
        let good = try await Self.curl(harness.server.port, "/v1/users/nobody", ["--cacert", files.caCertificatePath])
        #expect(good.exit == 0 && good.status == 404, "\(good.output)")
        let health = try await Self.curl(harness.server.port, "/healthz", ["--cacert", files.caCertificatePath])
        #expect(health.exit == 0 && health.status == 200, "\(health.output)")
        let untrusted = try await Self.curl(harness.server.port, "/healthz", [])
        #expect(untrusted.exit == 60, "curl: certificate verification must fail: \(untrusted.output)")
        let plain = try await ToolProcess.run("curl", ["-sS", "--max-time", "20", "http://127.0.0.1:\(harness.server.port)/healthz"])
        #expect(plain.status != 0 && !plain.output.contains("\"status\""), "\(plain.output)")
        await harness.stop()
        try? FileManager.default.removeItem(atPath: files.directory)
    }

    @Test("with a client CA, a request without a client certificate is refused in the handshake; with one it passes")
    func clientCertificates() async throws {
        let files = try Self.credentials()
        let other = try Self.credentials()
        let harness = try await Self.tlsHarness(files, clientCA: true)
        let port = harness.server.port
        let ca = ["--cacert", files.caCertificatePath]
        let without = try await Self.curl(port, "/healthz", ca)
        #expect(without.exit != 0 && without.status == 0, "no HTTP answer without a certificate: \(without.output)")
        // The TLS alert says why: openssl s_client shows it (TLS 1.3 sends it after the client's Finished,
        // so the client stays to read it with -ign_eof).
        func alert(_ options: [String]) async throws -> String {
            try await ToolProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", files.caCertificatePath,
                    "-ign_eof", "-quiet",
                ] + options,
                input: "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout: 30
            ).output
        }
        let noCertificate = try await alert([])
        #expect(noCertificate.contains("alert certificate required"), "\(noCertificate)")
        #expect(!noCertificate.contains("HTTP/1.1"))
        let foreign = try await alert(["-cert", other.clientCertificatePath, "-key", other.clientKeyPath])
        #expect(foreign.contains("alert unknown ca"), "\(foreign)")
        #expect(!foreign.contains("HTTP/1.1"))
        let trusted = try await alert(["-cert", files.clientCertificatePath, "-key", files.clientKeyPath])
        #expect(trusted.contains("HTTP/1.1 200 OK"), "\(trusted)")
        let with = try await Self.curl(port, "/v1/users/nobody", ca + ["--cert", files.clientCertificatePath, "--key", files.clientKeyPath])
        #expect(with.exit == 0 && with.status == 404, "\(with.output)")
        await harness.stop()
        try? FileManager.default.removeItem(atPath: files.directory)
        try? FileManager.default.removeItem(atPath: other.directory)
    }

    /// What `openssl s_client -trace` shows of a handshake: the ClientHello the client sent (its
    /// `client_version` and cipher suites) and the alerts and handshake messages it received.
    struct HandshakeTrace {
        var clientVersion: String?
        var offeredSuites: [String] = []
        var receivedAlerts: [String] = []
        var receivedHandshakes: [String] = []

        init(_ output: String) {
            var received = false
            var inClientHello = false
            for raw in output.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if raw.hasPrefix("Sent Record") || raw.hasPrefix("Received Record") {
                    received = raw.hasPrefix("Received")
                    inClientHello = false
                    continue
                }
                if !received, line.hasPrefix("ClientHello,") { inClientHello = clientVersion == nil }
                if inClientHello, line.hasPrefix("client_version=") { clientVersion = String(line.dropFirst("client_version=".count)) }
                if inClientHello, line.hasPrefix("{0x"), let close = line.firstIndex(of: "}") {
                    offeredSuites.append(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
                }
                if received, line.hasPrefix("Level=fatal(2), description=") {
                    receivedAlerts.append(String(line.dropFirst("Level=fatal(2), description=".count)))
                }
                if received, let name = line.split(separator: ",").first, ["ServerHello", "Certificate", "ServerKeyExchange"].contains(String(name)) {
                    receivedHandshakes.append(String(name))
                }
            }
        }
    }

    /// A handshake the server must refuse: what the client offers and the alert the server must answer with.
    struct Refusal: CustomStringConvertible, Sendable {
        var options: [String]
        /// `client_version` as the trace shows it.
        var version: String
        /// The IANA names of the suites offered (besides the renegotiation SCSV); empty: not checked.
        var suites: [String]
        var alert: String
        var description: String { options.joined(separator: " ") }
    }

    static let refusals = [
        // The client side is opened up (security level 0) so that it really offers what the server must refuse.
        Refusal(options: ["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"], version: "0x301 (TLS 1.0)", suites: [], alert: "protocol version(70)"),
        Refusal(options: ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"], version: "0x302 (TLS 1.1)", suites: [], alert: "protocol version(70)"),
        Refusal(
            options: ["-tls1_2", "-cipher", "AES128-SHA:@SECLEVEL=0"], version: "0x303 (TLS 1.2)",
            suites: ["TLS_RSA_WITH_AES_128_CBC_SHA"], alert: "handshake failure(40)"),
        Refusal(
            options: ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA"], version: "0x303 (TLS 1.2)",
            suites: ["TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"], alert: "handshake failure(40)"),
        // CBC with SHA-384 under ECDHE: not AEAD. (3DES is not in this OpenSSL at all: a client asked for
        // it offers nothing, so it cannot show the server's refusal.)
        Refusal(
            options: ["-tls1_2", "-cipher", "ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES256-SHA384"], version: "0x303 (TLS 1.2)",
            suites: ["TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384"], alert: "handshake failure(40)"),
        // AEAD, but RSA key exchange (no forward secrecy).
        Refusal(
            options: ["-tls1_2", "-cipher", "AES256-GCM-SHA384"], version: "0x303 (TLS 1.2)",
            suites: ["TLS_RSA_WITH_AES_256_GCM_SHA384"], alert: "handshake failure(40)"),
    ]

    @Test("openssl s_client: TLS 1.0 and 1.1 and weak TLS 1.2 suites are offered and refused by the server; TLS 1.2 AEAD and TLS 1.3 pass")
    func protocolFloor() async throws {
        let files = try Self.credentials()
        let harness = try await Self.tlsHarness(files)
        func handshake(_ options: [String]) async throws -> ToolProcess.Result {
            try await ToolProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(harness.server.port)",
                    "-CAfile", files.caCertificatePath, "-verify_return_error", "-trace",
                ] + options,
                input: "", timeout: 30)
        }
        for refused in Self.refusals {
            let result = try await handshake(refused.options)
            let trace = HandshakeTrace(result.output)
            #expect(result.status != 0, "\(refused) must fail: \(result.output.suffix(400))")
            // The client really offered it: a ClientHello went out with that version (and only those suites) ...
            #expect(trace.clientVersion == refused.version, "\(refused): the client's offer: \(result.output.prefix(1500))")
            if !refused.suites.isEmpty {
                #expect(
                    trace.offeredSuites.filter { $0 != "TLS_EMPTY_RENEGOTIATION_INFO_SCSV" } == refused.suites,
                    "\(refused): offered \(trace.offeredSuites)")
            }
            // ... and the server refused it: a fatal alert back instead of a ServerHello.
            #expect(trace.receivedAlerts == [refused.alert], "\(refused): \(result.output.suffix(1500))")
            #expect(trace.receivedHandshakes.isEmpty, "\(refused): the server answered \(trace.receivedHandshakes)")
        }
        for (accepted, protocolName) in [(["-tls1_2", "-cipher", "ECDHE+AESGCM"], "TLSv1.2"), (["-tls1_3"], "TLSv1.3")] {
            let result = try await handshake(accepted)
            #expect(result.status == 0, "\(accepted) must pass: \(result.output.suffix(400))")
            #expect(result.output.contains("Verify return code: 0 (ok)"), "\(accepted)")
            #expect(result.output.contains("New, \(protocolName), Cipher is "), "\(accepted): \(result.output.suffix(1500))")
            #expect(HandshakeTrace(result.output).receivedHandshakes.contains("ServerHello"), "\(accepted)")
        }
        await harness.stop()
        try? FileManager.default.removeItem(atPath: files.directory)
    }

    @Test("POST /v1/admin/reload serves a renewed certificate to new connections; an unusable file keeps the old one")
    func reload() async throws {
        let files = try Self.credentials()
        let renewed = try Self.credentials()
        let harness = try await Self.tlsHarness(files)
        let port = harness.server.port
        #expect(try await Self.curl(port, "/healthz", ["--cacert", files.caCertificatePath]).status == 200)
        // A key that does not match the certificate: refused, and the old certificate stays.
        try FileManager.default.removeItem(atPath: files.serverCertificatePath)
        try FileManager.default.copyItem(atPath: renewed.serverCertificatePath, toPath: files.serverCertificatePath)
        #expect(throws: ConfigurationError.self) { try harness.server.reloadTLS() }
        let refused = try await Self.curl(port, "/v1/admin/reload", ["--cacert", files.caCertificatePath, "-X", "POST"])
        #expect(refused.status == 422, "POST /v1/admin/reload with a mismatched key: \(refused.output)")
        #expect(Self.json(refused)?["error"]?["code"]?.stringValue == "reload_failed", "\(refused.output)")
        #expect(
            Self.json(refused)?["error"]?["message"]?.stringValue?.contains(
                "TLS key \(files.serverKeyPath) does not match the certificate \(files.serverCertificatePath)") == true, "\(refused.output)")
        #expect(try await Self.curl(port, "/healthz", ["--cacert", files.caCertificatePath]).status == 200)
        try FileManager.default.removeItem(atPath: files.serverKeyPath)
        try FileManager.default.copyItem(atPath: renewed.serverKeyPath, toPath: files.serverKeyPath)
        let reloaded = try await Self.curl(port, "/v1/admin/reload", ["--cacert", files.caCertificatePath, "-X", "POST"])
        #expect(reloaded.status == 200, "\(reloaded.output)")
        #expect(Self.json(reloaded)?["reloaded"]?.arrayValue?.compactMap(\.stringValue).contains("tls") == true, "\(reloaded.output)")
        #expect(try await Self.curl(port, "/healthz", ["--cacert", renewed.caCertificatePath]).status == 200)
        #expect(try await Self.curl(port, "/healthz", ["--cacert", files.caCertificatePath]).exit == 60)
        await harness.stop()
        try? FileManager.default.removeItem(atPath: files.directory)
        try? FileManager.default.removeItem(atPath: renewed.directory)
    }

    @Test("push-server reloads TLS and APNs credentials on SIGHUP and keeps running, a broken .p12 kept out; a missing key at start exits 78")
    func sighup() async throws {
        let files = try Self.credentials()
        let directory = files.directory
        let logPath = directory + "/push-server.log"
        let server = try await PushServerProcess.start(
            binary: BuiltServer.path,
            arguments: [
                "--embedded", "--data-dir", directory + "/data", "--port", "0",
                "--tls-cert", files.serverCertificatePath, "--tls-key", files.serverKeyPath,
            ],
            logPath: logPath)
        let before = try await ToolProcess.run(
            "curl",
            [
                "-sS", "--cacert", files.caCertificatePath, "--max-time", "20",
                "https://127.0.0.1:\(server.port)/healthz",
            ])
        #expect(before.status == 0 && before.output.contains("\"status\""), "\(before.output)")
        // The embedded certificate app's .p12 is replaced by a broken file: the reload keeps the old one.
        try Data("broken".utf8).write(to: URL(fileURLWithPath: directory + "/data/credentials/client.p12"))
        kill(server.processIdentifier, SIGHUP)
        // Pending together, SIGHUP is handled before SIGTERM (lower number, one queue), so the reload is in
        // the log; a SIGHUP that ended the process would show as a non-zero exit.
        #expect(server.stop(SIGTERM) == 0)
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.components(separatedBy: "event=tls.reloaded").count - 1 == 1, "\(log)")
        #expect(log.contains("signal=SIGTERM"))
        // The certificate app is dogwalk (sniffmeet signs in with a .p8 for its Live Activities).
        #expect(log.contains("event=apns.reload_failed app=dogwalk"), "\(log)")
        #expect(log.contains("event=credentials.reloaded apps=sniffmeet:unchanged,dogwalk:failed"), "\(log)")
        let missing = await PushServerLauncher.main(
            arguments: [
                "--embedded", "--data-dir", directory + "/data2", "--port", "0", "--tls-cert", files.serverCertificatePath,
                "--log-level", "error",
            ], environment: [:], embeddedAPNS: EmbeddedMockAPNS())
        #expect(missing == 78)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
