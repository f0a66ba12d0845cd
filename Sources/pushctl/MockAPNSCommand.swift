import APNSCore
import APNSMock
import Dispatch
import Foundation
import PushIO
import PushTLS

/// `pushctl mock-apns`: the mock APNs server on its own, with fresh credentials, until Ctrl-C.
enum MockAPNSCommand: Command {
    static let name = "mock-apns"
    static let summary = "Run the mock APNs server (fresh credentials, fault knobs) until Ctrl-C."

    static var help: CommandHelp {
        CommandHelp(
            overview: "Run the mock APNs server on its own: HTTP/2 over TLS with Apple's rules, accepting client certificates and provider tokens (a .p8 key it writes), with fresh test credentials. Prints 'mock-apns listening on HOST:PORT' once ready; SIGINT/SIGTERM stops it.",
            usage: ["pushctl mock-apns [--port 2197] [--write-credentials DIR] [fault options]"],
            options: [
                .value("host", "address", "Address to bind (default 127.0.0.1)."),
                .value("port", "port", "Port to bind (default 2197; 0 picks a free one)."),
                .value("write-credentials", "dir", "Write CA, server and client credentials plus credentials.json here (default: a temporary directory)."),
                .value("bundle-id", "id", "Bundle id in the client certificate and the token key's topics (default com.sniffmeet.app)."),
                .value("key-id", "id", "Key id of the written .p8 signing key (default MOCKKEY001)."),
                .value("team-id", "id", "Team id of the written .p8 signing key (default MOCKTEAM01)."),
                .value("environment", "env", "development (default) or production."),
                .value("reject", "reason", "Reject every request with this reason, e.g. BadDeviceToken or Unregistered."),
                .value("latency-ms", "n", "Delay each answer by n milliseconds."),
                .value("goaway-after", "n", "Send GOAWAY after n requests on a connection."),
                .value("close-after", "n", "Reset the connection when request n+1 arrives."),
                .value("max-streams", "n", "SETTINGS_MAX_CONCURRENT_STREAMS (default 1000)."),
                .flag("accept-all", "Benchmark mode: accept everything at once, no rules or records."),
            ],
            examples: [
                "pushctl mock-apns --port 2197 --write-credentials ./mock-creds",
                "pushctl mock-apns --port 0 --reject Unregistered --latency-ms 50",
                "pushctl mock-apns --write-credentials ./mock-creds   # then: send --direct --p8 ./mock-creds/AuthKey_MOCKKEY001.p8 --key-id MOCKKEY001 --team-id MOCKTEAM01 ...",
            ])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        _ = try arguments.positionals([], command: name)
        let host = arguments.value("host") ?? "127.0.0.1"
        let port = try arguments.int("port", command: name) ?? 2197
        guard (0...65535).contains(port) else { throw CLIError.usage("--port must be 0-65535", command: name) }
        let bundleID = arguments.value("bundle-id") ?? "com.sniffmeet.app"
        let explicitDirectory = arguments.value("write-credentials")
        let directory = explicitDirectory
            ?? NSTemporaryDirectory() + "pushctl-mock-apns-\(ProcessInfo.processInfo.processIdentifier)"
        let password = APNSID.generate()
        let files: TestCredentialFiles
        let signingKey: ES256PrivateKey
        let keyID = arguments.value("key-id") ?? "MOCKKEY001", teamID = arguments.value("team-id") ?? "MOCKTEAM01"
        for (flag, value) in [("key-id", keyID), ("team-id", teamID)] where !isAppleID(value) {
            throw CLIError.usage("--\(flag) must be 10 letters or digits, got '\(value)'", command: name)
        }
        let p8Path = directory + "/AuthKey_\(keyID).p8"
        let configurationBase: MockAPNSServer.Configuration
        do {
            files = try TestCredentialFiles.write(to: directory, bundleID: bundleID, password: password)
            configurationBase = try MockAPNSServer.Configuration(credentialFiles: files)
            try SecretFile.write(Array((password + "\n").utf8), to: directory + "/client.p12.password")
            signingKey = try ES256PrivateKey.generate()
            try SecretFile.write(Array(signingKey.pkcs8PEM.utf8), to: p8Path)
        } catch {
            throw CLIError(ExitCode.config, "cannot write credentials to '\(directory)': \(error)",
                           hint: "pass a writable directory to --write-credentials")
        }
        var configuration = configurationBase
        configuration.host = host
        configuration.port = port
        // Certificates and tokens both: ask for a client certificate without requiring one, and check
        // bearer tokens against the signing key written above.
        let authenticator = MockAPNSTokenAuthenticator(certificates: MockAPNSCertificateAuthenticator())
        do {
            var topics = [bundleID]
            for type in PushType.all where !topics.contains(type.topic(forBundleID: bundleID)) {
                topics.append(type.topic(forBundleID: bundleID))
            }
            try authenticator.registerSigningKey(publicKeyPEM: signingKey.publicKeyPEM, keyID: keyID, teamID: teamID, topics: topics)
        } catch {
            throw CLIError(ExitCode.config, "cannot register the signing key: \(error)", hint: "report this as a bug")
        }
        configuration.authenticator = authenticator
        configuration.clientCertificatePolicy = .request
        try apply(arguments, to: &configuration)

        let server: MockAPNSServer
        do {
            server = try MockAPNSServer(configuration: configuration)
        } catch {
            throw CLIError(ExitCode.unavailable, "cannot listen on \(host):\(port): \(error)",
                           hint: "pick another --port, or --port 0 for a free one")
        }
        let manifest: JSONValue = [
            "ca": .string(files.caCertificatePath),
            "client_p12": .string(files.clientP12Path),
            "client_p12_legacy": .string(files.clientLegacyP12Path),
            "client_p12_password": .string(password),
            "client_p12_password_file": .string(directory + "/client.p12.password"),
            "client_pem": .string(files.clientCertificatePath),
            "client_key": .string(files.clientKeyPath),
            "server_cert": .string(files.serverCertificatePath),
            "server_key": .string(files.serverKeyPath),
            "bundle_id": .string(bundleID),
            "p8": .string(p8Path),
            "key_id": .string(keyID),
            "team_id": .string(teamID),
            "host": .string(host),
            "port": .int(Int64(server.port)),
            "environment": .string(configuration.environment == .production ? "production" : "development"),
        ]
        do {
            try SecretFile.write(manifest.serialized(), to: directory + "/credentials.json")
        } catch {
            server.stop()
            throw CLIError(ExitCode.config, "cannot write '\(directory)/credentials.json': \(error)",
                           hint: "pass a writable directory to --write-credentials")
        }
        let signals = SignalWaiter([SIGINT, SIGTERM])
        if explicitDirectory == nil { Console.err("mock-apns: credentials in \(directory)") }
        Console.out("mock-apns listening on \(host):\(server.port)")
        let signal = await signals.wait()
        let counters = server.counters()
        server.stop()
        Console.err("mock-apns: stopped on signal \(signal) after \(counters.streams) requests (\(counters.accepted) accepted, \(counters.rejected) rejected)")
        return ExitCode.ok
    }

    private static func isAppleID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    private static func apply(_ arguments: ParsedArguments, to configuration: inout MockAPNSServer.Configuration) throws(CLIError) {
        switch arguments.value("environment") {
        case nil, "development": configuration.environment = .development
        case "production": configuration.environment = .production
        case let other?: throw CLIError.usage("--environment must be development or production, got '\(other)'", command: name)
        }
        if let reason = arguments.value("reject") {
            let parsed = APNSRejectionReason(rawValue: reason)
            let timestamp: Date? = parsed == .unregistered || parsed == .expiredToken ? Date() : nil
            configuration.handler = MockAPNSHandlers.rejectAll(parsed, timestamp: timestamp)
        }
        if let millis = try arguments.int("latency-ms", command: name) {
            guard millis >= 0 else { throw CLIError.usage("--latency-ms must be 0 or more", command: name) }
            configuration.latency = .fixed(Double(millis) / 1000)
        }
        if let count = try arguments.int("goaway-after", command: name) { configuration.goAwayAfterStreams = count }
        if let count = try arguments.int("close-after", command: name) { configuration.abruptCloseAfterStreams = count }
        if let count = try arguments.int("max-streams", command: name) {
            guard count > 0 else { throw CLIError.usage("--max-streams must be at least 1", command: name) }
            configuration.maxConcurrentStreams = count
        }
        if arguments.has("accept-all") { configuration.acceptAll = true }
    }
}
