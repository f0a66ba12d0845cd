import APNS
import APNSCore
import ArgumentParsing
import Foundation
import JSON
import PushIO
import PushTLS

/// `send --direct`: loads the .p12 (or the .p8 signing key), opens one APNs connection and sends each token in turn.
struct DirectSend {
    /// The options only `send --direct` takes: the credential, and which APNs to reach and how.
    static let options: [OptionSpec] =
        [.value("cert", "file.p12", "Client certificate (--direct).")] + OptionSpec.apnsTokenKey(prefix: "").map(\.sentence)
        + [
            .value("password-file", "file", "File holding the .p12 password (else $PUSHCTL_P12_PASSWORD)."),
            .choice("env", ["production", "development"], "Which APNs to send to (--direct)."),
        ] + OptionSpec.apnsEndpoint(prefix: "").map(\.sentence) + [
            .url(
                "proxy", "url",
                "Reach APNs through http://host:port (CONNECT) or socks5://host:port (--direct; add ?nodelay=1 for a proxy that relays at once, see docs/OPERATING.md); a proxy URL with user and password goes in $PUSHCTL_PROXY.",
                passwordFrom: "the PUSHCTL_PROXY environment variable")
        ]

    /// Client certificate or provider-token signing key.
    enum Auth {
        case certificate(path: String, password: String)
        case token(p8Path: String, keyID: String, teamID: String)
    }

    let tokens: [DeviceToken]
    let auth: Auth
    let environment: APNSEnvironment
    let trustedCA: String?
    let proxy: APNSProxy?

    init(_ arguments: ParsedArguments, command: String) throws(CLIError) {
        let texts = arguments.all("token")
        guard !texts.isEmpty else { throw CLIError.usage("--direct needs --token", command: command) }
        for flag in ["user", "tokens-file", "wait", "url", "batch-size"] where arguments.value(flag) != nil || arguments.has(flag) {
            throw CLIError.usage("--\(flag) does not apply with --direct", command: command)
        }
        var tokens: [DeviceToken] = []
        for text in texts {
            do { tokens.append(try DeviceToken(text)) } catch {
                throw CLIError.usage("bad --token: \(error)", command: command)
            }
        }
        self.tokens = tokens
        if let p8 = arguments.value("p8") {
            if arguments.value("cert") != nil || arguments.value("password-file") != nil {
                throw CLIError.usage("--p8 and --cert/--password-file exclude each other", command: command)
            }
            auth = .token(
                p8Path: p8, keyID: try arguments.required("key-id", command: command),
                teamID: try arguments.required("team-id", command: command))
        } else {
            guard let certPath = arguments.value("cert") else {
                throw CLIError.usage("--direct needs --cert <file.p12> or --p8 <file.p8> --key-id <id> --team-id <id>", command: command)
            }
            for flag in ["key-id", "team-id"] where arguments.value(flag) != nil {
                throw CLIError.usage("--\(flag) only applies with --p8", command: command)
            }
            auth = .certificate(path: certPath, password: try Self.password(arguments))
        }
        let env = arguments.value("env")
        if let host = arguments.value("host") {
            guard let port = try arguments.int("port", command: command), (1...65535).contains(port) else {
                throw CLIError.usage("--host needs --port <1-65535>", command: command)
            }
            environment = .custom(host: host, port: port, isDevelopment: env == "development")
        } else {
            var chosen: APNSEnvironment
            switch env {
            case "production": chosen = .production
            case "development": chosen = .development
            case nil: throw CLIError.usage("--direct needs --env production|development or --host and --port", command: command)
            case let other?: throw CLIError.usage("--env must be production or development, got '\(other)'", command: command)
            }
            if let port = try arguments.int("port", command: command) {
                chosen = chosen.with(port: port)
            }
            environment = chosen
        }
        if let caPath = arguments.value("ca") {
            guard let data = FileManager.default.contents(atPath: caPath), let pem = String(data: data, encoding: .utf8) else {
                throw CLIError(ExitCode.config, "cannot read CA file '\(caPath)'", hint: "pass a PEM certificate with --ca")
            }
            trustedCA = pem
        } else {
            trustedCA = nil
        }
        // A proxy URL with a password comes from PUSHCTL_PROXY: the parser refuses one given to --proxy.
        if let url = arguments.value("proxy") ?? ProcessInfo.processInfo.environment["PUSHCTL_PROXY"].flatMap({ $0.isEmpty ? nil : $0 }) {
            do { proxy = try APNSProxy(url: url) } catch {
                throw CLIError(
                    ExitCode.usage, "--proxy: \(error)",
                    hint: "use http://host:port or socks5://host:port; with user and password, set PUSHCTL_PROXY")
            }
        } else {
            proxy = nil
        }
    }

    /// The .p12 password: from `--password-file`, else `PUSHCTL_P12_PASSWORD`, else empty; never an option value.
    private static func password(_ arguments: ParsedArguments) throws(CLIError) -> String {
        do {
            let environment = ProcessInfo.processInfo.environment
            return try SecretInput.read(arguments, fileOption: "password-file", variable: "PUSHCTL_P12_PASSWORD", environment: environment)?
                .value ?? ""
        } catch {
            throw CLIError(ExitCode.config, error.message, hint: "check the path given to --password-file")
        }
    }

    func run(_ push: PushOptions, format: OutputFormat) async throws -> ExitCode {
        let credentials: APNSClientConfiguration.Credentials
        let bundleID: String
        switch auth {
        case .token(let p8Path, let keyID, let teamID):
            do {
                credentials = .token(try APNSTokenCredentials.load(p8Path: p8Path, keyID: keyID, teamID: teamID))
            } catch {
                throw CLIError(ExitCode.config, "cannot use '\(p8Path)': \(error)", hint: "check --p8, --key-id and --team-id")
            }
            guard push.topic != nil else {
                throw CLIError(ExitCode.usage, "token auth needs --topic (a .p8 key names no bundle id)", hint: "pass --topic <bundle-id>")
            }
            bundleID = ""
        case .certificate(let certPath, let password):
            (credentials, bundleID) = try Self.certificate(certPath, password: password)
            if push.topic == nil, bundleID.isEmpty {
                throw CLIError(ExitCode.config, "the certificate names no bundle id", hint: "pass --topic")
            }
        }
        return try await send(push, credentials: credentials, bundleID: bundleID, format: format)
    }

    private static func certificate(_ certPath: String, password: String) throws(CLIError) -> (APNSClientConfiguration.Credentials, String) {
        let identity: TLSIdentity
        do {
            identity = try TLSIdentity(p12Path: certPath, password: password)
            try identity.checkNotExpired()
        } catch let error as TLSError {
            throw Self.credentialError(error, path: certPath)
        } catch {
            throw CLIError(ExitCode.config, "cannot load '\(certPath)': \(error)", hint: "check --cert and its password")
        }
        return (.identity(identity), identity.certificate.subjectUID ?? identity.certificate.apns.topics.first ?? "")
    }

    private func send(
        _ push: PushOptions, credentials: APNSClientConfiguration.Credentials, bundleID: String,
        format: OutputFormat
    ) async throws -> ExitCode {
        var configuration = APNSClientConfiguration(
            credentials: credentials, environment: environment,
            trustedCAPEM: trustedCA)
        configuration.connectTimeout = .seconds(10)
        configuration.requestTimeout = .seconds(20)
        configuration.maxResends = 1
        configuration.proxy = proxy
        let client = try APNSClient(configuration: configuration)
        var results: [JSONValue] = []
        var rejected = 0
        var failure: CLIError?
        let via = proxy.map { " via \($0)" } ?? ""
        for token in tokens {
            do {
                let outcome = try await client.send(push.notification(token: token, defaultTopic: bundleID))
                if !outcome.isAccepted { rejected += 1 }
                results.append(Self.json(outcome, token: token))
                if format == .table { Console.out(Self.line(outcome, token: token, many: tokens.count > 1)) }
            } catch let error as APNSTransportError {
                failure =
                    error.kind == .proxyRefused
                    ? CLIError(
                        ExitCode.config, "the proxy refused the tunnel: \(error.message)", hint: "check the user and password in PUSHCTL_PROXY")
                    : CLIError(
                        ExitCode.failure, "could not send to \(environment.host):\(environment.port)\(via): \(error)",
                        hint: "check the host, port and --ca, and that APNs (or the mock) is running")
                results.append(["token": .string(token.hex), "status": "failed", "error": .string(error.description)])
                break
            } catch let error as APNSValidationError {
                failure = CLIError(ExitCode.usage, "notification is invalid: \(error)", hint: "run 'pushctl send --help'")
                break
            }
        }
        await client.shutdown(deadline: .seconds(2))
        if format != .table { format.print(["results": .array(results)]) {} }
        if let failure { throw failure }
        return rejected > 0 ? ExitCode.rejected : ExitCode.ok
    }

    static func line(_ outcome: APNSOutcome, token: DeviceToken, many: Bool) -> String {
        let prefix = many ? token.hex + "  " : ""
        switch outcome {
        case .accepted(let apnsID, let uniqueID):
            return prefix + "accepted apns-id \(apnsID)" + (uniqueID.map { " apns-unique-id \($0)" } ?? "")
        case .rejected(let rejection):
            var text = prefix + "rejected \(rejection.status) \(rejection.reason.rawValue)"
            if let timestamp = rejection.timestamp {
                text += " timestamp \(Int64((timestamp.timeIntervalSince1970 * 1000).rounded())) (\(ISO8601DateFormatter().string(from: timestamp)))"
            }
            return text
        }
    }

    static func json(_ outcome: APNSOutcome, token: DeviceToken) -> JSONValue {
        var object: [String: JSONValue] = ["token": .string(token.hex)]
        switch outcome {
        case .accepted(let apnsID, let uniqueID):
            object["status"] = "accepted"
            object["apns_id"] = .string(apnsID)
            if let uniqueID { object["apns_unique_id"] = .string(uniqueID) }
        case .rejected(let rejection):
            object["status"] = "rejected"
            object["http_status"] = .int(Int64(rejection.status))
            object["reason"] = .string(rejection.reason.rawValue)
            if let apnsID = rejection.apnsID { object["apns_id"] = .string(apnsID) }
            if let timestamp = rejection.timestamp {
                object["timestamp"] = .int(Int64((timestamp.timeIntervalSince1970 * 1000).rounded()))
            }
        }
        return .object(object)
    }

    static func credentialError(_ error: TLSError, path: String) -> CLIError {
        switch error.kind {
        case .fileMissing:
            CLIError(ExitCode.config, "certificate file '\(path)' is missing or unreadable", hint: "check --cert")
        case .wrongPassword:
            CLIError(
                ExitCode.config, "wrong password for '\(path)'",
                hint: "check --password-file or PUSHCTL_P12_PASSWORD")
        case .notPKCS12:
            CLIError(ExitCode.config, "'\(path)' is not a PKCS#12 (.p12) file", hint: "export the certificate with its key as .p12")
        case .noPrivateKey:
            CLIError(ExitCode.config, "'\(path)' holds no private key", hint: "export the certificate together with its key")
        case .expiredCertificate:
            CLIError(ExitCode.config, "the certificate in '\(path)' has expired", hint: "renew it in the Apple Developer portal")
        default:
            CLIError(ExitCode.config, "cannot use '\(path)': \(error.message)", hint: "check --cert and its password")
        }
    }
}
