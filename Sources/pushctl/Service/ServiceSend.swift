import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// `send` through push-server: POST /v1/pushes to a user, tokens, or a tokens file in batches.
struct ServiceSend {
    enum Recipients {
        case user(String)
        case tokens([String])
        case file(String)
    }

    let recipients: Recipients
    let wait: Bool
    let format: OutputFormat
    let batchSize: Int
    let client: ServiceClient

    init(_ arguments: ParsedArguments, command: String, format: OutputFormat) throws(CLIError) {
        let user = arguments.value("user")
        let tokens = arguments.all("token")
        let file = arguments.value("tokens-file")
        let given = [user != nil, !tokens.isEmpty, file != nil].filter { $0 }.count
        guard given == 1 else {
            throw CLIError.usage(
                given == 0
                    ? "say who gets the push: --user, --token or --tokens-file"
                    : "--user, --token and --tokens-file exclude each other", command: command)
        }
        if let user {
            recipients = .user(user)
        } else if let file {
            recipients = .file(file)
        } else {
            var hex: [String] = []
            for text in tokens {
                do { hex.append(try DeviceToken(text).hex) } catch { throw CLIError.usage("bad --token: \(error)", command: command) }
            }
            recipients = .tokens(hex)
        }
        wait = arguments.has("wait")
        self.format = format
        batchSize = try arguments.int("batch-size", command: command) ?? 5000
        guard (1...10_000).contains(batchSize) else {
            throw CLIError.usage("--batch-size must be 1-10000 (push-server takes at most 10000 tokens per push)", command: command)
        }
        client = try ServiceClient(arguments)
    }

    func run(_ push: PushOptions) async throws -> ExitCode {
        switch recipients {
        case .user(let user):
            var body = push.requestMembers
            body["user_id"] = .string(user)
            return try await single(body)
        case .tokens(let tokens):
            var body = push.requestMembers
            body["tokens"] = .array(tokens.map { .string($0) })
            return try await single(body)
        case .file(let path):
            let tokens = try Self.readTokens(path)
            return try await BulkSend(
                client: client, push: push, tokens: tokens, batchSize: batchSize,
                wait: wait, format: format
            ).run()
        }
    }

    private var path: String { wait ? "/v1/pushes?wait=true" : "/v1/pushes" }

    private func single(_ body: [String: JSONValue]) async throws -> ExitCode {
        let response = try await client.send("POST", path, body: .object(body))
        PushOutput.print(response, format: format, waited: wait)
        return PushOutput.exitCode(response)
    }

    /// Tokens from a file: one per line; blank lines and `#` comments skipped.
    static func readTokens(_ path: String) throws(CLIError) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(ExitCode.config, "cannot read tokens file '\(path)'", hint: "check --tokens-file")
        }
        var tokens: [String] = []
        var lineNumber = 0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            do { tokens.append(try DeviceToken(text).hex) } catch {
                throw CLIError(ExitCode.usage, "\(path):\(lineNumber): bad token: \(error)", hint: "one hex token per line")
            }
        }
        guard !tokens.isEmpty else { throw CLIError(ExitCode.usage, "'\(path)' holds no tokens", hint: "one hex token per line") }
        return tokens
    }
}

/// Counts outcomes in `POST /v1/pushes` answers: `202 {"push_id", "notifications": [{"id", "token"}]}` (all
/// queued) or, with `?wait=true` (and `GET /v1/pushes/{id}`), `200 {"push_id", "complete", "counts": {state: n},
/// "notifications": [{"token", "state", "reason", "status", "apns_id", ...}]}`.
struct PushTally {
    var byOutcome: [String: Int] = [:]
    var byReason: [String: Int] = [:]
    var incomplete = 0

    init() {}

    init(_ json: JSONValue?) {
        add(json)
    }

    var rejected: Int { byOutcome["rejected", default: 0] }
    /// Notifications that reached a final state other than accepted.
    var undelivered: Int { ["rejected", "failed", "expired"].reduce(0) { $0 + byOutcome[$1, default: 0] } }
    var total: Int { byOutcome.values.reduce(0, +) }

    mutating func add(_ json: JSONValue?) {
        guard let json else { return }
        if json["complete"]?.boolValue == false { incomplete += 1 }
        for item in json["notifications"]?.arrayValue ?? [] {
            // 202 answers carry no state: everything is queued.
            let state = item["state"]?.stringValue ?? "queued"
            byOutcome[state, default: 0] += 1
            if let reason = item["reason"]?.stringValue { byReason[reason, default: 0] += 1 }
        }
    }

    var json: JSONValue {
        ["outcomes": .object(byOutcome.mapValues { .int(Int64($0)) }), "reasons": .object(byReason.mapValues { .int(Int64($0)) })]
    }
}

/// Readable output for a push answer.
enum PushOutput {
    /// Prints a push answer in `format`: JSON or YAML as is, else readably.
    static func print(_ response: ServiceClient.Response, format: OutputFormat, waited: Bool) {
        ServiceOutput.print(response, format: format) { print(response.json, waited: waited) }
    }

    /// 2 when a notification ended rejected, failed or expired, else 0.
    static func exitCode(_ response: ServiceClient.Response) -> ExitCode {
        PushTally(response.json).undelivered > 0 ? ExitCode.rejected : ExitCode.ok
    }

    static func print(_ json: JSONValue?, waited: Bool) {
        guard let json, let pushID = json["push_id"]?.stringValue else { return }
        let notifications = json["notifications"]?.arrayValue ?? []
        if !waited {
            Console.out("push \(pushID): queued \(notifications.count) notification\(notifications.count == 1 ? "" : "s")")
            return
        }
        let complete = json["complete"]?.boolValue ?? false
        Console.out("push \(pushID): \(complete ? "complete" : "not complete yet (the wait timed out)")")
        let rows = notifications.map { item in
            ["token", "state", "reason", "status", "apns_id"].map { key in item[key].map(ServiceOutput.text) ?? "-" }
        }
        if rows.isEmpty {
            Console.out("no notifications")
        } else {
            Console.table(["TOKEN", "STATE", "REASON", "STATUS", "APNS-ID"], rows)
        }
    }
}
