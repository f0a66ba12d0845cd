public import Foundation

/// A child started with `posix_spawn` in a process group of its own, its standard output and error on
/// one pipe, reaped with `waitpid` on its own pid.
///
/// Not Foundation's `Process`: that one notices a child's end through a descriptor the child inherits,
/// and a daemon such as danted closes every descriptor at start; Foundation then blocks in a `waitpid`
/// on it, and no other `Process` in the test run is ever seen to finish.
public final class SpawnedProcess: Sendable {
    /// The child's pid (and its process group's id).
    public let pid: pid_t
    /// The read end of the child's standard output and error.
    public let output: FileHandle
    private let status = ProcessStatus()

    /// Starts `executable` with `arguments` (the environment is inherited, with `environment` set over it;
    /// standard input is /dev/null).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ProxyProcessError("pipe() failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(pipeEnds[1])
        guard result == 0 else {
            close(pipeEnds[0])
            throw ProxyProcessError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        output = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true)
    }

    /// Reads the child's output to its end, waits for the child to exit and returns its exit status and
    /// output. Blocks: call it on a thread of its own.
    public func waitForExit() -> (status: Int32, output: String) {
        let data = output.readDataToEndOfFile()
        var code: Int32 = 0
        status.reapOnce {
            while waitpid(pid, &code, 0) < 0 && errno == EINTR {}
        }
        let exited = code & 0x7f == 0
        return (exited ? (code >> 8) & 0xff : 128 + (code & 0x7f), String(decoding: data, as: UTF8.self))
    }

    /// Sends SIGKILL to the child's whole process group and reaps the child (once).
    func killGroup() {
        status.reapOnce {
            kill(-pid, SIGKILL)
            var code: Int32 = 0
            while waitpid(pid, &code, 0) < 0 && errno == EINTR {}
        }
    }
}

/// Whether a child was reaped already. `@unchecked Sendable`: the flag is read and written under `lock`.
private final class ProcessStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var reaped = false

    func reapOnce(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !reaped else { return }
        reaped = true
        body()
    }
}
