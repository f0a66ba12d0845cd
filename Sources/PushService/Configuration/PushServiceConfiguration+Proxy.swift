import Foundation
public import PushIO

/// How push-server reaches APNs when a proxy is configured explicitly.
public enum APNSProxySetting: Sendable, Equatable {
    /// Connect directly, whatever `HTTPS_PROXY` says (`--apns-proxy none`).
    case direct
    /// Tunnel through this proxy.
    case through(IOProxy)
}

extension PushServiceConfiguration.APNSSettings {
    /// The proxy for APNs connections to `host`: the explicit setting (`apns.proxy`, `PUSH_APNS_PROXY`,
    /// `--apns-proxy`) when there is one, else `HTTPS_PROXY` / `https_proxy` unless `NO_PROXY` names the
    /// host (loopback hosts never take the environment's proxy: they are the embedded or a local mock).
    public func proxy(for host: String) -> IOProxy? {
        switch proxy {
        case .direct?: return nil
        case .through(let explicit)?: return explicit
        case nil: break
        }
        guard let environmentProxy, !Self.isLoopback(host), !Self.noProxy(noProxy, matches: host) else { return nil }
        return environmentProxy
    }

    /// What `proxy(for:)` gives for the APNs hosts in use, for the start-up log (never with credentials).
    public var proxySummary: String {
        let hosts = host.map { [$0] } ?? ["api.push.apple.com", "api.sandbox.push.apple.com"]
        let chosen = Set(hosts.map { proxy(for: $0)?.description ?? "direct" })
        let source = proxy == nil && environmentProxy != nil && chosen != ["direct"] ? " (HTTPS_PROXY)" : ""
        return chosen.sorted().joined(separator: ", ") + source
    }

    /// Parses an explicit setting: a proxy URL, or `none` / `direct` / empty for a direct connection.
    static func proxySetting(_ text: String, _ name: String) throws(ConfigurationError) -> APNSProxySetting {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "none" || trimmed.lowercased() == "direct" { return .direct }
        do {
            return .through(try IOProxy(url: trimmed))
        } catch {
            throw ConfigurationError("\(name): \(error)")
        }
    }

    /// Reads `HTTPS_PROXY` / `https_proxy` and `NO_PROXY` / `no_proxy` (the lower-case spelling wins, as in curl).
    mutating func applyProxyEnvironment(_ environment: [String: String]) throws(ConfigurationError) {
        if let text = environment["https_proxy"] ?? environment["HTTPS_PROXY"], !text.isEmpty {
            do {
                environmentProxy = try IOProxy(url: text)
            } catch {
                throw ConfigurationError("HTTPS_PROXY: \(error)")
            }
        }
        if let text = environment["no_proxy"] ?? environment["NO_PROXY"] {
            noProxy = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// True when an entry of `NO_PROXY` covers `host`: `*`, the host itself, or a parent domain
    /// (`example.com` and `.example.com` both cover `api.example.com`); a `:port` suffix is ignored.
    static func noProxy(_ entries: [String], matches host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        for var entry in entries {
            if entry == "*" { return true }
            if !entry.hasPrefix("["), let colon = entry.lastIndex(of: ":"), entry.filter({ $0 == ":" }).count == 1 {
                entry = String(entry[..<colon])
            }
            entry = entry.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if host == domain || host.hasSuffix("." + domain) { return true }
        }
        return false
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
