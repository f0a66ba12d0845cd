import Foundation

/// Secrets for programs under test, written where the programs read them (`--api-key-file`,
/// `--apns-password-file`): secrets are never option values.
public enum SecretFiles {
    /// Writes `text` and a line break to `path` (mode 0600, its directory created); returns `path`.
    @discardableResult
    public static func write(_ text: String, to path: String) throws -> String {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        return path
    }
}
