import Foundation

/// push-server processes running on this machine and the TCP ports they listen on, read from `/proc`
/// (Linux; elsewhere none are found), for the message when a connection is refused.
enum RunningServers {
    /// One running push-server.
    struct Server: Sendable {
        let pid: Int32
        /// Listening TCP ports, lowest first (empty when its sockets cannot be read).
        let ports: [Int]
    }

    /// Every process whose name is `push-server`, lowest pid first.
    static func find(name: String = "push-server") -> [Server] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let pids = entries.compactMap(Int32.init).sorted().filter { pid in
            let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }
        guard !pids.isEmpty else { return [] }
        let listening = listeningSockets()
        return pids.map { pid in
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let inodes = Set(
                fds.compactMap { fd -> String? in
                    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                        target.hasPrefix("socket:[")
                    else { return nil }
                    return String(target.dropFirst(8).dropLast())
                })
            return Server(pid: pid, ports: Set(inodes.compactMap { listening[$0] }).sorted())
        }
    }

    /// Socket inode → port for every TCP socket in LISTEN state (`/proc/net/tcp` and `tcp6`, state `0A`).
    ///
    /// The kernel hands these tables out a page per read and resumes each page by position, so a socket
    /// opened or closed elsewhere between two pages shifts the rest and can leave a listener out of a
    /// reading. So the tables are read until two readings in a row agree (at most 32 times) and every
    /// reading is merged; an entry of a socket closed meanwhile names an inode no process holds, so the
    /// merge adds nothing wrong. With another process opening and closing 50 listeners in a loop, a
    /// push-server's API port was missing from 39 of 60 messages read once and from 3 of 60 this way.
    private static func listeningSockets() -> [String: Int] {
        var merged: [String: Int] = [:]
        var previous: [String: Int]?
        for _ in 0..<32 {
            let reading = readListening()
            merged.merge(reading) { kept, _ in kept }
            if reading == previous { break }
            previous = reading
        }
        return merged
    }

    /// One reading of both tables.
    private static func readListening() -> [String: Int] {
        var ports: [String: Int] = [:]
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", let portHex = fields[1].split(separator: ":").last,
                    let port = Int(portHex, radix: 16)
                else { continue }
                ports[String(fields[9])] = port
            }
        }
        return ports
    }
}
