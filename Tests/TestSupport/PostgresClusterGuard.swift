import Foundation
import PushSync

/// The process that stops the test cluster and removes its directory once the test process is gone (see
/// `PostgresTestCluster`): `/bin/sh` reading a pipe only this process can write to.
enum ClusterGuard {
    /// The write end, open (and never written) for the life of the process; close-on-exec, so no other
    /// child holds it.
    private static let writeEnd = PThreadLock<Int32>(-1)

    /// Starts the guard for the clusters in `dataDirectories` (relative to `directory`), which it stops
    /// (waking a stopped postmaster first) before removing `directory`.
    static func start(directory: String, asPostgres: Bool, dataDirectories: [String] = ["data"]) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw PostgresTestClusterError("pipe() failed") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let quoted = "'" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let runAs = asPostgres ? "/usr/sbin/runuser -u postgres -- " : ""
        let stops = dataDirectories.map { data in
            """
            if [ -f \(quoted)/\(data)/postmaster.pid ]; then
              kill -CONT "$(head -1 \(quoted)/\(data)/postmaster.pid)" 2>/dev/null
              \(runAs)\(PostgresTestCluster.binaries)/pg_ctl -D \(quoted)/\(data) -m immediate -w stop >/dev/null 2>&1
            fi
            """
        }.joined(separator: "\n")
        let script = """
            trap '' INT TERM HUP
            read ignored
            \(stops)
            rm -rf \(quoted)
            """
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)  // dup2 clears close-on-exec on fd 0
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let arguments: [String] = ["/bin/sh", "-c", script]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, environ)
        close(ends[0])
        guard result == 0 else {
            close(ends[1])
            throw PostgresTestClusterError("cannot start the cluster guard: \(String(cString: strerror(result)))")
        }
        writeEnd.withLock { $0 = ends[1] }
    }
}

/// A thread-safe counter (database names).
final class Counter: Sendable {
    private let value = PThreadLock(0)

    /// The next number, from 1.
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
