import EmbeddedAPNS
import Foundation
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

    /// `curl` over HTTPS with the test key: (exit status, HTTP status or 0, output).
    static func curl(_ port: Int, _ path: String, _ extra: [String]) async throws -> (exit: Int32, status: Int, output: String) {
        let result = try await ToolProcess.run(
            "curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20",
                "-H", "Authorization: Bearer \(ServiceHarness.apiKey)",
            ]
                + extra + ["https://127.0.0.1:\(port)\(path)"])
        let status = Int(result.output.suffix(3)) ?? 0
        return (result.status, status, result.output)
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

    @Test("openssl s_client: TLS 1.0 and 1.1 and weak TLS 1.2 suites are refused; TLS 1.2 AEAD and TLS 1.3 pass")
    func protocolFloor() async throws {
        let files = try Self.credentials()
        let harness = try await Self.tlsHarness(files)
        func handshake(_ options: [String]) async throws -> ToolProcess.Result {
            try await ToolProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(harness.server.port)",
                    "-CAfile", files.caCertificatePath, "-verify_return_error",
                ] + options,
                input: "", timeout: 30)
        }
        // The client side is opened up (security level 0) so that it really offers what the server must refuse.
        for refused in [
            ["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"], ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"],
            ["-tls1_2", "-cipher", "AES128-SHA:@SECLEVEL=0"], ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA"],
            ["-tls1_2", "-cipher", "DES-CBC3-SHA:@SECLEVEL=0"], ["-tls1_2", "-cipher", "AES256-GCM-SHA384"],
        ] {
            let result = try await handshake(refused)
            #expect(result.status != 0, "\(refused) must fail: \(result.output.suffix(400))")
            #expect(
                !result.output.contains("Verify return code: 0 (ok)") || result.output.contains("Cipher is (NONE)"),
                "\(refused)")
        }
        for accepted in [["-tls1_2", "-cipher", "ECDHE+AESGCM"], ["-tls1_3"]] {
            let result = try await handshake(accepted)
            #expect(result.status == 0, "\(accepted) must pass: \(result.output.suffix(400))")
            #expect(result.output.contains("Verify return code: 0 (ok)"), "\(accepted)")
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
        #expect(try await Self.curl(port, "/healthz", ["--cacert", files.caCertificatePath]).status == 200)
        try FileManager.default.removeItem(atPath: files.serverKeyPath)
        try FileManager.default.copyItem(atPath: renewed.serverKeyPath, toPath: files.serverKeyPath)
        let reloaded = try await Self.curl(port, "/v1/admin/reload", ["--cacert", files.caCertificatePath, "-X", "POST"])
        #expect(reloaded.status == 200, "\(reloaded.output)")
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
        #expect(log.contains("event=apns.reload_failed app=sniffmeet"), "\(log)")
        #expect(log.contains("event=credentials.reloaded apps=sniffmeet:failed,dogwalk:unchanged"), "\(log)")
        let missing = await PushServerLauncher.main(
            arguments: [
                "--embedded", "--data-dir", directory + "/data2", "--port", "0", "--tls-cert", files.serverCertificatePath,
                "--log-level", "error",
            ], environment: [:], embeddedAPNS: EmbeddedMockAPNS())
        #expect(missing == 78)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
