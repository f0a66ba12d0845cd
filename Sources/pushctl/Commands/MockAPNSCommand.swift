import APNSCore
import APNSMock
import ArgumentParsing
import Dispatch
import Foundation
import JSON
import PushProcess
import PushTLS
import PushTLSTesting

/// `pushctl mock-apns`: the mock APNs server on its own, with fresh credentials, until Ctrl-C.
struct MockAPNSCommand: Command {
    let name = "mock-apns"
    let summary = "Run the mock APNs server (fresh credentials, fault knobs) until Ctrl-C."

    let help = CommandHelp(
        overview:
            "Run the mock APNs server on its own: HTTP/2 over TLS with Apple's rules, accepting client certificates and provider tokens (a .p8 key it writes), with fresh test credentials. Broadcasts go to the push port; Apple's channel management API (create, read, list, delete channels) has a port of its own. Prints 'mock-apns listening on HOST:PORT' once ready; SIGINT/SIGTERM stops it.",
        usage: ["pushctl mock-apns [--port 2197] [--channel-port 2195] [--write-credentials DIR] [--control-port N] [fault options]"],
        options: [
            .value("host", "address", "Address to bind (default 127.0.0.1)."),
            .value("port", "port", "Port to bind (default 2197; 0 picks a free one)."),
            .value(
                "channel-port", "port",
                "Port of the broadcast channel management API, a listener of its own as at Apple (default 2195, or 0 with --port 0; 0 picks a free one). It goes into credentials.json as channel_port."
            ),
            .value(
                "write-credentials", "dir", "Write CA, server and client credentials plus credentials.json here (default: a temporary directory)."
            ),
            .value("bundle-id", "id", "Bundle id in the client certificate and the token key's topics (default com.sniffmeet.app)."),
            .value("key-id", "id", "Key id of the written .p8 signing key (default MOCKKEY001)."),
            .value("team-id", "id", "Team id of the written .p8 signing key (default MOCKTEAM01)."),
            .choice("environment", ["development", "production"], "Which APNs the mock stands for (default development)."),
            .value("reject", "reason", "Reject every request with this reason, e.g. BadDeviceToken or Unregistered."),
            .value("latency-ms", "n", "Delay each answer by n milliseconds."),
            .value("goaway-after", "n", "Send GOAWAY after n requests on a connection."),
            .value("goaway-close-ms", "n", "Close each connection n milliseconds after its GOAWAY, answered or not."),
            .flag("limit-flip", "After each rejection announce MAX_CONCURRENT_STREAMS 1, restore it after the next success."),
            .value("close-after", "n", "Reset the connection when request n+1 arrives."),
            .value("close-every", "n", "Reset the connection carrying every n-th request (counted over all connections)."),
            .value("rate-429", "p", "Answer this share (0-1) of otherwise accepted requests with 429 TooManyRequests."),
            .value("rate-503", "p", "Answer this share (0-1) of otherwise accepted requests with 503 ServiceUnavailable."),
            .value("jitter-ms", "n", "Delay each answer by a random 0-n milliseconds."),
            .value("max-streams", "n", "SETTINGS_MAX_CONCURRENT_STREAMS (default 1000)."),
            .value(
                "max-records", "n",
                "Keep only the newest n records (oldest dropped first; counters keep counting), so a long run's memory stays flat (default: keep all)."
            ),
            .flag("accept-all", "Benchmark mode: accept everything (after --latency-ms, if given), no rules or records."),
            .value(
                "control-port", "port",
                "Serve the JSON control API (rules, records, waits, knobs, reset; docs/mock-control.yaml) on 127.0.0.1:port; 0 picks a free one. Its URL goes into credentials.json as control_url."
            ),
        ],
        examples: [
            "pushctl mock-apns --port 2197 --write-credentials ./mock-creds",
            "pushctl mock-apns --port 0 --reject Unregistered --latency-ms 50",
            "pushctl mock-apns --channel-port 2195 --write-credentials ./mock-creds   # then curl -X POST https://127.0.0.1:2195/1/apps/BUNDLE/channels ...",
            "pushctl mock-apns --port 0 --control-port 0 --write-credentials ./mock-creds   # control_url in credentials.json",
            "pushctl mock-apns --goaway-after 1000 --close-every 5000 --rate-429 0.01 --rate-503 0.01 --jitter-ms 50",
            "pushctl mock-apns --write-credentials ./mock-creds   # then: send --direct --p8 ./mock-creds/AuthKey_MOCKKEY001.p8 --key-id MOCKKEY001 --team-id MOCKTEAM01 ...",
        ])

    func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        _ = try arguments.positionals([], command: name)
        let host = arguments.value("host") ?? "127.0.0.1"
        let port = try arguments.int("port", command: name) ?? 2197
        guard (0...65535).contains(port) else { throw CLIError.usage("--port must be 0-65535", command: name) }
        let bundleID = arguments.value("bundle-id") ?? "com.sniffmeet.app"
        let channelPort = try arguments.int("channel-port", command: name) ?? (port == 0 ? 0 : 2195)
        guard (0...65535).contains(channelPort) else { throw CLIError.usage("--channel-port must be 0-65535", command: name) }
        let applyKnobs = try knobs(arguments)
        let controlPort = try arguments.int("control-port", command: name)
        if let controlPort, !(0...65535).contains(controlPort) {
            throw CLIError.usage("--control-port must be 0-65535", command: name)
        }
        if controlPort != nil, arguments.has("accept-all") {
            throw CLIError.usage("--control-port needs rules and records: leave out --accept-all", command: name)
        }
        let explicitDirectory = arguments.value("write-credentials")
        let directory =
            explicitDirectory
            ?? NSTemporaryDirectory() + "pushctl-mock-apns-\(ProcessInfo.processInfo.processIdentifier)"
        let password = APNSID.generate()
        let files: TestCredentialFiles
        let signingKey: ES256PrivateKey
        let keyID = arguments.value("key-id") ?? "MOCKKEY001"
        let teamID = arguments.value("team-id") ?? "MOCKTEAM01"
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
            throw CLIError(
                ExitCode.config, "cannot write credentials to '\(directory)': \(error)",
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
        applyKnobs(&configuration)

        let server: MockAPNSServer
        do {
            server = try MockAPNSServer(configuration: configuration)
        } catch {
            throw CLIError(
                ExitCode.unavailable, "cannot listen on \(host):\(port): \(error)",
                hint: "pick another --port, or --port 0 for a free one")
        }
        let channels: MockAPNSChannelServer
        do {
            channels = try server.startChannelServer(port: channelPort)
        } catch {
            server.stop()
            throw CLIError(
                ExitCode.unavailable, "cannot serve channel management on \(host):\(channelPort): \(error)",
                hint: "pick another --channel-port, or 0 for a free one")
        }
        var control: MockAPNSControlServer?
        if let controlPort {
            do {
                control = try server.startControlServer(port: controlPort)
            } catch {
                channels.stop()
                server.stop()
                throw CLIError(
                    ExitCode.unavailable, "cannot serve the control API on 127.0.0.1:\(controlPort): \(error)",
                    hint: "pick another --control-port, or 0 for a free one")
            }
        }
        var manifest: JSONValue = [
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
            "channel_port": .int(Int64(channels.port)),
            "environment": .string(configuration.environment == .production ? "production" : "development"),
        ]
        if case .object(var members) = manifest {
            members["control_url"] = control.map { .string($0.url) } ?? .null
            manifest = .object(members)
        }
        do {
            try SecretFile.write(manifest.serialized(), to: directory + "/credentials.json")
        } catch {
            control?.stop()
            channels.stop()
            server.stop()
            throw CLIError(
                ExitCode.config, "cannot write '\(directory)/credentials.json': \(error)",
                hint: "pass a writable directory to --write-credentials")
        }
        let signals = SignalWaiter([SIGINT, SIGTERM])
        if explicitDirectory == nil { Console.err("mock-apns: credentials in \(directory)") }
        if let control { Console.out("mock-apns control API on \(control.url)") }
        Console.out("mock-apns channel management API on \(host):\(channels.port)")
        Console.out("mock-apns listening on \(host):\(server.port)")
        let signal = await signals.wait()
        let counters = server.counters()
        control?.stop()
        channels.stop()
        server.stop()
        Console.err(
            "mock-apns: stopped on signal \(signal) after \(counters.streams) requests (\(counters.accepted) accepted, \(counters.rejected) rejected)"
        )
        return ExitCode.ok
    }

    private func isAppleID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Reads and checks the behaviour flags before anything is written; the result is applied to the
    /// server's configuration once its credentials exist.
    private func knobs(_ arguments: ParsedArguments) throws(CLIError) -> @Sendable (inout MockAPNSServer.Configuration) -> Void {
        var knobs: [@Sendable (inout MockAPNSServer.Configuration) -> Void] = []
        switch arguments.value("environment") {
        case nil, "development": knobs.append { $0.environment = .development }
        case "production": knobs.append { $0.environment = .production }
        case let other?: throw CLIError.usage("--environment must be development or production, got '\(other)'", command: name)
        }
        if let reason = arguments.value("reject") {
            let parsed = APNSRejectionReason(rawValue: reason)
            let timestamp: Date? = parsed == .unregistered || parsed == .expiredToken ? Date() : nil
            let handler = MockAPNSHandlers.rejectAll(parsed, timestamp: timestamp)
            knobs.append { $0.handler = handler }
        }
        if let millis = try arguments.int("latency-ms", command: name) {
            guard millis >= 0 else { throw CLIError.usage("--latency-ms must be 0 or more", command: name) }
            knobs.append { $0.latency = .fixed(.milliseconds(millis)) }
        }
        if let count = try arguments.int("goaway-after", command: name) { knobs.append { $0.goAwayAfterStreams = count } }
        if let millis = try arguments.int("goaway-close-ms", command: name) {
            guard millis >= 0 else { throw CLIError.usage("--goaway-close-ms must be 0 or more", command: name) }
            knobs.append { $0.closeAfterGoAway = .milliseconds(millis) }
        }
        if arguments.has("limit-flip") { knobs.append { $0.dropStreamLimitAfterRejection = true } }
        if let count = try arguments.int("close-after", command: name) { knobs.append { $0.abruptCloseAfterStreams = count } }
        if let count = try arguments.int("close-every", command: name) {
            guard count > 0 else { throw CLIError.usage("--close-every must be at least 1", command: name) }
            knobs.append { $0.abruptCloseEveryStreams = count }
        }
        let rates = (try arguments.double("rate-429", command: name), try arguments.double("rate-503", command: name))
        for (flag, rate) in [("rate-429", rates.0), ("rate-503", rates.1)] where rate.map({ !(0...1).contains($0) }) == true {
            throw CLIError.usage("--\(flag) must be between 0 and 1", command: name)
        }
        if (rates.0 ?? 0) + (rates.1 ?? 0) > 1 {
            throw CLIError.usage("--rate-429 and --rate-503 together must not exceed 1", command: name)
        }
        if rates.0 != nil || rates.1 != nil {
            let faultRates = MockFaultRates(tooManyRequests: rates.0 ?? 0, serviceUnavailable: rates.1 ?? 0)
            knobs.append { $0.faultRates = faultRates }
        }
        if arguments.value("latency-ms") != nil && arguments.value("jitter-ms") != nil {
            throw CLIError.usage("give --latency-ms or --jitter-ms, not both", command: name)
        }
        if let millis = try arguments.int("jitter-ms", command: name) {
            guard millis >= 0 else { throw CLIError.usage("--jitter-ms must be 0 or more", command: name) }
            knobs.append { $0.latency = .jitter(min: .zero, max: .milliseconds(millis)) }
        }
        if let count = try arguments.int("max-streams", command: name) {
            guard count > 0 else { throw CLIError.usage("--max-streams must be at least 1", command: name) }
            knobs.append { $0.maxConcurrentStreams = count }
        }
        if let count = try arguments.int("max-records", command: name) {
            guard count > 0 else { throw CLIError.usage("--max-records must be at least 1", command: name) }
            knobs.append { $0.maxRecords = count }
        }
        if arguments.has("accept-all") { knobs.append { $0.acceptAll = true } }
        let ready = knobs
        return { configuration in
            for knob in ready { knob(&configuration) }
        }
    }
}
