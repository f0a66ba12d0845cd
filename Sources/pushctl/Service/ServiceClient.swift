import APNSCore
import ArgumentParsing
import Foundation
import JSON

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// push-server's REST API over HTTP: URL and key from flags, environment, the config file or `./var/api-key`
/// (`ServiceSettings`), failures mapped to exit codes (connection refused 69, 401 77) with messages naming the fix.
struct ServiceClient: Sendable {
    /// The options of every command that talks to push-server: where it is, the key, and the output format.
    static let specs: [OptionSpec] =
        [
            .value("url", "url", "push-server URL (default $PUSHCTL_URL, the config file's url, or http://127.0.0.1:8080)."),
            .value("api-key-file", "file", "File holding the API key (else $PUSHCTL_API_KEY, the config file's api_key, ./var/api-key)."),
        ] + OutputFormat.specs

    let settings: ServiceSettings
    var baseURL: String { settings.url }
    private let session: URLSession

    init(_ arguments: ParsedArguments) throws(CLIError) {
        settings = try ServiceSettings(
            arguments, environment: ProcessInfo.processInfo.environment,
            directory: FileManager.default.currentDirectoryPath)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    /// One request: method, path (with its query) and JSON body.
    struct Request: Sendable {
        let method: String
        let path: String
        var body: JSONValue? = nil
    }

    /// One answer: status and body parsed as JSON when it is JSON.
    struct Response: Sendable {
        let status: Int
        let body: [UInt8]
        var json: JSONValue? { try? JSONValue.parse(body) }
    }

    /// Sends `request`, failing on anything but 2xx.
    func send(_ request: Request) async throws(CLIError) -> Response {
        try await send(request.method, request.path, body: request.body)
    }

    /// Sends a request and maps transport failures and auth refusals to exit codes; other statuses
    /// are returned, unless `check` is set, in which case anything but 2xx becomes a failure.
    func send(_ method: String, _ path: String, body: JSONValue? = nil, check: Bool = true) async throws(CLIError) -> Response {
        guard let url = URL(string: baseURL + path) else {
            throw CLIError(ExitCode.usage, "cannot build a URL for '\(path)'", hint: "check the ids you passed")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let apiKey = settings.apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.serialized())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw await unreachable(error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let answer = Response(status: status, body: Array(data))
        if status == 401 || status == 403 {
            throw refused(status, detail: Self.detail(answer), method: method, path: path)
        }
        if status == 503 || status == 502 {
            throw CLIError(
                ExitCode.unavailable, "push-server is unavailable (\(status))\(Self.detail(answer))",
                hint: "check 'pushctl status'")
        }
        if check, !(200..<300).contains(status) {
            throw CLIError(
                ExitCode.failure, "\(method) \(path) failed with \(status)\(Self.detail(answer))",
                hint: status == 404 ? "check the id" : "see docs/openapi.yaml for the request shape")
        }
        return answer
    }

    static func detail(_ response: Response) -> String {
        guard let json = response.json else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                .replacingOccurrences(of: "\n", with: " ")
            return text.isEmpty ? "" : ": \(text)"
        }
        if let message = json["error"]?["message"]?.stringValue ?? json["message"]?.stringValue ?? json["error"]?.stringValue
            ?? json["reason"]?.stringValue
        {
            return ": \(message)"
        }
        return ": " + String(decoding: json.serialized(), as: UTF8.self)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .cannotFindHost: return "unknown host"
            case .networkConnectionLost: return "connection lost"
            default: return error.localizedDescription
            }
        }
        return "\(error)"
    }

    /// Percent-encodes one path segment.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
