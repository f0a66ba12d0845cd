import Foundation

/// Reading and writing credential files with the errors callers branch on.
package enum CredentialFile {
    /// The bytes of a file; `.fileMissing` when it does not exist or cannot be read.
    static func readBytes(_ path: String) throws -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TLSError(.fileMissing, "no such file: \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSError(.fileMissing, "cannot read \(path)")
        }
        return [UInt8](data)
    }

    /// The text of a file, as UTF-8.
    static func readText(_ path: String) throws -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// Writes bytes atomically; `secret` files are made readable by the owner only (0600).
    package static func write(_ bytes: [UInt8], to path: String, secret: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        try Data(bytes).write(to: url, options: .atomic)
        if secret {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
    }
}
