import ArgumentParsing
import Foundation

/// push-server's URL and API key, each with the place it was read from, so that a refusal can name it.
///
/// URL: `--url`, `PUSHCTL_URL`, the config file's `url`, else `http://127.0.0.1:8080`.
/// Key: `--api-key-file`, `PUSHCTL_API_KEY`, the config file's `api_key`, else `./var/api-key` (what `make run` writes).
struct ServiceSettings: Sendable {
    /// The service URL without a trailing slash.
    let url: String
    /// Where `url` came from, e.g. `--url` or `PUSHCTL_URL`.
    let urlSource: String
    /// The API key, if any source had one.
    let apiKey: String?
    /// Where `apiKey` came from, e.g. `PUSHCTL_API_KEY` or `the config file /home/me/.config/pushctl/config.json`.
    let keySource: String?
    /// Every place a key is looked for, in order, for the message when none was found.
    let keyPlaces: [String]

    /// The default URL, where `make run` serves.
    static let defaultURL = "http://127.0.0.1:8080"

    init(_ arguments: ParsedArguments, environment: [String: String], directory: String) throws(CLIError) {
        let file = try PushctlConfigFile.load(environment: environment)
        let fileName = file.path.map { "the config file \($0)" } ?? "the config file"
        var url: String
        if let flag = arguments.value("url") {
            (url, urlSource) = (flag, "--url")
        } else if let variable = environment["PUSHCTL_URL"], !variable.isEmpty {
            (url, urlSource) = (variable, "PUSHCTL_URL")
        } else if let fromFile = file.url {
            (url, urlSource) = (fromFile, "\(fileName) (url)")
        } else {
            (url, urlSource) = (Self.defaultURL, "the default")
        }
        while url.hasSuffix("/") { url.removeLast() }
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil else {
            throw CLIError(
                ExitCode.config, "bad service URL '\(url)' (from \(urlSource))",
                hint: "use --url http://HOST:PORT or set PUSHCTL_URL")
        }
        self.url = url
        let varKey = directory + "/var/api-key"
        keyPlaces = ["--api-key-file", "PUSHCTL_API_KEY", "\(fileName) (api_key)", "./var/api-key in \(directory)"]
        if let path = arguments.value("api-key-file") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError(
                    ExitCode.config, "cannot read the API key file '\(path)' (--api-key-file)",
                    hint: "check the path; the file holds the key on one line")
            }
            (apiKey, keySource) = (Self.trimmed(data), "--api-key-file \(Self.absolute(path, in: directory))")
        } else if let key = environment["PUSHCTL_API_KEY"], !key.isEmpty {
            (apiKey, keySource) = (key, "PUSHCTL_API_KEY")
        } else if let key = file.apiKey, !key.isEmpty {
            (apiKey, keySource) = (key, "\(fileName) (api_key)")
        } else if let data = FileManager.default.contents(atPath: varKey) {
            (apiKey, keySource) = (Self.trimmed(data), "./var/api-key (\(varKey))")
        } else {
            (apiKey, keySource) = (nil, nil)
        }
    }

    private static func trimmed(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func absolute(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }
}
