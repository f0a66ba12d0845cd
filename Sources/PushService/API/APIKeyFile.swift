import Foundation

/// The API key file of the embedded mode: `<data-dir>/api-key`, created with a random key if missing.
enum APIKeyFile {
    static func loadOrCreate(dataDirectory: String) throws -> String {
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("api-key").path
        if let data = FileManager.default.contents(atPath: path) {
            let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        let key = randomHex(bytes: 24)
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data((key + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError("cannot write the API key file \(path)")
        }
        return key
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
