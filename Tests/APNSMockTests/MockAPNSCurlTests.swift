import APNSCore
import APNSMock
import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushTLS
import PushTLSTesting
import Testing

/// Files from `TestCredentialFiles` and a server configured from them; removed at deinit.
final class CurlFixture: Sendable {
    let directory: String
    let files: TestCredentialFiles
    let server: MockAPNSServer

    init() throws {
        directory = NSTemporaryDirectory() + "apns-mock-curl-" + UUID().uuidString
        files = try TestCredentialFiles.write(to: directory, bundleID: bundleID, password: "curl-secret")
        server = try MockAPNSServer(configuration: try MockAPNSServer.Configuration(credentialFiles: files))
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs Apple's documented curl command; returns status, body and the response headers.
    func curl(token: String, topic: String, payload: [UInt8]) throws -> (status: Int, body: String, headers: String) {
        let headerFile = directory + "/headers-\(UUID().uuidString).txt"
        var arguments = [
            "--http2", "--silent", "--show-error",
            "--cert-type", "P12", "--cert", "\(files.clientP12Path):\(files.password)",
            "--cacert", files.caCertificatePath,
            "-H", "apns-topic: \(topic)",
            "--dump-header", headerFile, "--write-out", "\n%{http_code}",
        ]
        if payload.count < 256 {
            arguments += ["--data", text(payload)]
        } else {
            let payloadFile = directory + "/payload-\(UUID().uuidString).json"
            try Data(payload).write(to: URL(fileURLWithPath: payloadFile))
            arguments += ["--data-binary", "@" + payloadFile]
        }
        arguments.append("https://127.0.0.1:\(server.port)/3/device/\(token)")
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let newline = text.lastIndex(of: "\n"),
            let status = Int(text[text.index(after: newline)...])
        else {
            throw CurlFailure(output: text, exitCode: process.terminationStatus)
        }
        let headers = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return (status, String(text[..<newline]), headers)
    }

    /// The same request from the Swift HTTP/2 client with the PEM client credential.
    func swiftClient() throws -> HTTP2ClientConnection {
        let identity = try TLSIdentity(certificatePEMPath: files.clientCertificatePath, keyPEMPath: files.clientKeyPath)
        let tls = try TLSContext.client(TLSClientConfiguration(identity: identity, trust: server.credentials.trust))
        return HTTP2ClientConnection(loop: clientLoop, configuration: .init(host: "127.0.0.1", port: server.port, tls: tls))
    }
}

/// curl did not finish normally.
struct CurlFailure: Error, CustomStringConvertible {
    let output: String
    let exitCode: Int32
    var description: String { "curl exited \(exitCode): \(output)" }
}

/// One request sent both ways.
struct CurlCase: Sendable, CustomTestStringConvertible {
    let name: String
    let token: String
    let topic: String
    let payload: [UInt8]
    let status: Int
    let body: String
    var testDescription: String { name }
}

@Suite("Mock APNs server: Apple's curl command gets the same answers as the Swift client")
struct MockAPNSCurlTests {
    static let cases = [
        CurlCase(name: "accepted", token: tokenA, topic: bundleID, payload: alertPayload, status: 200, body: ""),
        CurlCase(
            name: "BadDeviceToken", token: "0123456789", topic: bundleID, payload: alertPayload, status: 400,
            body: #"{"reason":"BadDeviceToken"}"#),
        CurlCase(
            name: "BadTopic", token: tokenA, topic: "com.other.app", payload: alertPayload, status: 400,
            body: #"{"reason":"BadTopic"}"#),
        CurlCase(
            name: "PayloadTooLarge", token: tokenA, topic: bundleID, payload: paddedPayload(4097), status: 413,
            body: #"{"reason":"PayloadTooLarge"}"#),
    ]

    @Test("curl --http2 --cert-type P12 and HTTP2ClientConnection: same status and body", arguments: cases)
    func sameAnswers(_ testCase: CurlCase) async throws {
        let fixture = try CurlFixture()
        defer { fixture.server.stop() }
        let byCurl = try fixture.curl(token: testCase.token, topic: testCase.topic, payload: testCase.payload)
        let connection = try fixture.swiftClient()
        let watcher = ConnectionWatcher()
        try await connection.loop.submit { connection.delegate = watcher }
        let request = HTTP2Request(
            authority: "127.0.0.1:\(fixture.server.port)", path: "/3/device/" + testCase.token,
            headers: [(APNSHeader.topic, testCase.topic)], body: testCase.payload)
        let bySwift = try await respond(connection, request)
        connection.loop.execute { connection.close() }
        try await watcher.closed()

        #expect(byCurl.status == testCase.status)
        #expect(byCurl.body == testCase.body)
        #expect(bySwift.status == byCurl.status)
        #expect(text(bySwift.body) == byCurl.body)
        #expect(byCurl.headers.hasPrefix("HTTP/2 "), "\(byCurl.headers)")
        #expect(byCurl.headers.lowercased().contains("apns-id: "))
        #expect(bySwift.header(APNSHeader.id) != nil)
    }
}
