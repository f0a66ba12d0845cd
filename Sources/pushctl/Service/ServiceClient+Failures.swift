import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The messages for a service that cannot be reached or refuses the key: each says where pushctl looked
/// and what to change.
extension ServiceClient {
    /// A transport failure (exit 69): the URL and where it came from, and, for a refused connection to this
    /// machine, whether a push-server process is running and where it listens.
    func unreachable(_ error: any Error) async -> CLIError {
        let url = URL(string: baseURL)
        let host = url?.host ?? "?"
        let port = url?.port ?? (url?.scheme == "https" ? 443 : 80)
        var message = "cannot reach push-server at \(baseURL) (URL from \(settings.urlSource)): \(Self.describe(error))"
        let refused = (error as? URLError)?.code == .cannotConnectToHost
        guard refused else {
            return CLIError(
                ExitCode.unavailable, message,
                hint: "check that push-server runs at \(baseURL), or point --url / PUSHCTL_URL at it")
        }
        message += "; nothing accepts connections on \(host):\(port)"
        guard ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
            return CLIError(
                ExitCode.unavailable, message,
                hint: "check that push-server runs on \(host) and listens on port \(port), or fix --url / PUSHCTL_URL")
        }
        let servers = RunningServers.find()
        guard !servers.isEmpty else {
            return CLIError(
                ExitCode.unavailable, message + "; no push-server process is running on this machine",
                hint: "start it with 'make run' (it serves \(ServiceSettings.defaultURL)), or point --url / PUSHCTL_URL at where it runs")
        }
        let list = servers.map { server in
            "pid \(server.pid)" + (server.ports.isEmpty ? "" : " listening on port \(server.ports.map(String.init).joined(separator: ", "))")
        }.joined(separator: "; ")
        var answering: [Int] = []
        for port in servers.flatMap(\.ports).prefix(16) where await answersHealth(port) { answering.append(port) }
        let suggestion =
            answering.isEmpty
            ? "point --url / PUSHCTL_URL at the address push-server printed ('listening on ...')"
            : "use " + answering.map { "--url http://127.0.0.1:\($0)" }.joined(separator: " or ") + " (or set PUSHCTL_URL)"
        return CLIError(ExitCode.unavailable, message + "; push-server is running, but elsewhere: \(list)", hint: suggestion)
    }

    /// Whether plain HTTP `GET /healthz` on this machine's `port` gets any HTTP answer (push-server's API; its
    /// embedded mock speaks TLS only).
    private func answersHealth(_ port: Int) async -> Bool {
        guard let url = URL(string: "http://127.0.0.1:\(port)/healthz") else { return false }
        var request = URLRequest(url: url)
        request.timeoutInterval = 1
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return false }
        return response is HTTPURLResponse
    }

    /// A 401 or 403 (exit 77): which key was sent and from where, or that none was found and where pushctl looked.
    func refused(_ status: Int, detail: String, method: String, path: String) -> CLIError {
        let serverKey =
            "push-server's key is in its --api-key-file or PUSH_API_KEY, or the api-key file in its --data-dir (./var/api-key with 'make run')"
        guard let source = settings.keySource else {
            return CLIError(
                ExitCode.authRefused,
                "push-server at \(baseURL) wants an API key (\(status))\(detail), and pushctl found none; "
                    + "it looked at \(settings.keyPlaces.joined(separator: ", "))",
                hint: "set PUSHCTL_API_KEY or --api-key-file; \(serverKey)")
        }
        if status == 403 {
            return CLIError(
                ExitCode.authRefused,
                "push-server at \(baseURL) refused \(method) \(path) for the API key from \(source) (403)\(detail)",
                hint: "that key lacks the scope this route needs; use a key that has it")
        }
        return CLIError(
            ExitCode.authRefused,
            "push-server at \(baseURL) refused the API key from \(source) (\(status))\(detail)",
            hint: "fix the key in \(source) to match push-server's; \(serverKey)")
    }
}
