import Foundation
import PushTLS

/// A fresh directory under the system temp directory, removed when the value is released.
final class TemporaryDirectory {
    /// The directory's path.
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("PushTLSTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String {
        URL(fileURLWithPath: path).appendingPathComponent(name).path
    }

    /// Writes bytes to `name` and returns its path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }
}

/// Runs a command line tool to completion and returns its exit status and standard error.
@discardableResult
func run(_ executable: String, _ arguments: [String], in directory: String) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let output = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// The kind of `TLSError` a closure throws, or nil when it throws nothing or something else.
func tlsErrorKind(_ body: () throws -> Void) -> TLSError.Kind? {
    do {
        try body()
        return nil
    } catch let error as TLSError {
        return error.kind
    } catch {
        return nil
    }
}

let testBundleID = "com.sniffmeet.test"
let openSSLTool = "/usr/bin/openssl"
