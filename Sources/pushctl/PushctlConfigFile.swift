import APNSCore
import Foundation
import JSON

/// Settings from pushctl's config file: `$PUSHCTL_CONFIG`, else `~/.config/pushctl/config.json`.
/// `{"url": "http://host:8080", "api_key": "..."}`; flags and environment variables win over it.
struct PushctlConfigFile: Sendable {
    var url: String?
    var apiKey: String?
    /// The file read, or looked for (nil when there is no HOME and no PUSHCTL_CONFIG).
    var path: String?

    /// Reads the file if there is one; a file that exists but is not valid is a config error (78).
    static func load(environment: [String: String]) throws(CLIError) -> PushctlConfigFile {
        let path: String
        if let explicit = environment["PUSHCTL_CONFIG"], !explicit.isEmpty {
            path = explicit
        } else if let home = environment["HOME"] {
            path = home + "/.config/pushctl/config.json"
        } else {
            return PushctlConfigFile()
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            if environment["PUSHCTL_CONFIG"] != nil {
                throw CLIError(ExitCode.config, "config file \(path) cannot be read", hint: "check PUSHCTL_CONFIG")
            }
            return PushctlConfigFile(path: path)
        }
        guard let json = try? JSONValue.parse(Array(data)), json.objectValue != nil else {
            throw CLIError(ExitCode.config, "config file \(path) is not a JSON object", hint: #"write {"url": "...", "api_key": "..."}"#)
        }
        return PushctlConfigFile(url: json["url"]?.stringValue, apiKey: json["api_key"]?.stringValue, path: path)
    }
}
