import Foundation
import TestSupport

/// A tmpfs of a few megabytes mounted (as root, as `make test` runs) on a directory of its own: a real
/// filesystem that fills up.
struct SmallFilesystem {
    struct MountFailed: Error, CustomStringConvertible {
        var output: String
        var description: String { "mount -t tmpfs failed: \(output)" }
    }

    let path: String

    /// Mounts one of `size` (`8m`) with `options` added (`uid=…`).
    static func mount(size: String, options: String = "mode=0777") async throws -> SmallFilesystem {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("push-small-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let result = try await Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),\(options)", "tmpfs", path])
        guard result.status == 0 else { throw MountFailed(output: result.output) }
        return SmallFilesystem(path: path)
    }

    /// Runs a program to completion with `posix_spawn` (`SpawnedProcess`): Foundation's `Process` notices a
    /// child's end through a descriptor that a PostgreSQL server started meanwhile by another test inherits
    /// and keeps, and would then wait for ever.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try SpawnedProcess(executable, arguments)
        return await offPool { process.waitForExit() }
    }

    /// Writes a file until the filesystem has no space left (down to the last 512 bytes); returns its path.
    func fill() throws -> String {
        let filler = path + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        defer { try? handle.close() }
        var size = 1 << 20
        while size >= 512 {
            do { try handle.write(contentsOf: Data(count: size)) } catch { size /= 2 }
        }
        return filler
    }

    /// Runs `body` with the filesystem mounted, and unmounts it afterwards whatever happened.
    static func withMounted<T>(
        size: String, options: String = "mode=0777", _ body: (SmallFilesystem) async throws -> T
    ) async throws -> T {
        let filesystem = try await mount(size: size, options: options)
        do {
            let result = try await body(filesystem)
            await filesystem.unmount()
            return result
        } catch {
            await filesystem.unmount()
            throw error
        }
    }

    func unmount() async {
        _ = try? await Self.run("/usr/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}
