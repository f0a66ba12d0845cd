import Foundation

/// Where a program reads a secret: a file an option names (`--…-password-file`, `--api-key-file`) or an
/// environment variable, never an option value.
public enum SecretInput {
    /// A secret and the place it was read from (the option with its path, or the variable), for messages
    /// that must name the source without repeating the secret.
    public struct Found: Sendable, Equatable {
        /// The secret.
        public let value: String
        /// Where it came from, e.g. `--apns-password-file /etc/push/p12.password` or `PUSH_APNS_PASSWORD`.
        public let source: String

        /// A secret read from `source`.
        public init(value: String, source: String) {
            self.value = value
            self.source = source
        }
    }

    /// The secret from the file option `fileOption` names, else from `variable` in `environment` (when
    /// set and not empty), else nil. The file's text is taken without its trailing line break.
    public static func read(
        _ arguments: ParsedArguments, fileOption: String, variable: String?, environment: [String: String]
    ) throws(ArgumentError) -> Found? {
        if let path = arguments.value(fileOption) {
            return Found(value: try text(ofFile: path, option: "--\(fileOption)"), source: "--\(fileOption) \(path)")
        }
        if let variable, let value = environment[variable], !value.isEmpty { return Found(value: value, source: variable) }
        return nil
    }

    /// The text of the secret file at `path` without its trailing line break; `option` names the option
    /// that gave the path in the error when the file cannot be read.
    public static func text(ofFile path: String, option: String) throws(ArgumentError) -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ArgumentError("cannot read the file '\(path)' given to \(option)", hint: "check the path and its permissions")
        }
        var trimmed = Substring(text)
        while let last = trimmed.last, last.isNewline { trimmed.removeLast() }
        return String(trimmed)
    }

    /// True when `text` is a URL whose user part holds a password (`scheme://user:password@host…`).
    public static func urlHoldsPassword(_ text: String) -> Bool {
        guard let scheme = text.range(of: "://") else { return false }
        let rest = text[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return false }
        return authority[..<at].contains(":")
    }
}
