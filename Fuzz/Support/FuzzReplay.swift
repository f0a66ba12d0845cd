import Foundation

/// The `main` of a fuzz target in a normal build (without `-D FUZZING`): runs the target's check over
/// files, so the seed corpus and saved crash inputs replay under a debugger or in CI without libFuzzer.
public enum FuzzReplay {
    /// Runs `check` on every file named in `arguments`, or on every file inside a named directory.
    /// Exits 2 on a usage or read error; a broken invariant stops the process inside `check`.
    public static func main(name: String, arguments: [String], check: ([UInt8]) -> Void) -> Never {
        guard !arguments.isEmpty else {
            print("usage: \(name) FILE_OR_DIRECTORY...  (replays inputs; build with `make fuzz` to fuzz)")
            exit(2)
        }
        var count = 0
        for path in arguments {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("\(name): cannot read \(file)")
                    exit(2)
                }
                check([UInt8](data))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed, all invariants held")
        exit(0)
    }

    /// `path` itself, or the regular files directly inside it, sorted by name.
    private static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { (path as NSString).appendingPathComponent($0) }
    }
}
