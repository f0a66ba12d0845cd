import Foundation
import PushSync

/// Log levels, lowest first.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    /// Per-notification detail.
    case debug
    /// One line per request and lifecycle event.
    case info
    /// Something degraded but working.
    case warning
    /// Something failed.
    case error

    private var rank: Int { LogLevel.allCases.firstIndex(of: self) ?? 0 }

    /// Orders levels by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}

/// Writes one logfmt line per event (`time=… level=info event=http.request status=200 …`).
///
/// Callers pass only non-secret fields: API keys, passwords and payload bodies are never handed to it.
public struct ServiceLogger: Sendable {
    /// Lines below this level are dropped.
    public var level: LogLevel
    private let sink: @Sendable (String) -> Void

    /// A logger writing to `sink` (default: standard error).
    public init(level: LogLevel = .info, sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.sink = sink ?? ServiceLogger.standardError
    }

    /// A logger that writes nothing.
    public static let silent = ServiceLogger(level: .error, sink: { _ in })

    private static let lock = PThreadLock<Void>(())

    private static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { _ in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Logs `event` with `fields` at `level`. `fields` is evaluated only when the line is written: a request's
    /// line costs nothing at a level that drops it.
    public func log(_ level: LogLevel, _ event: String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard level >= self.level else { return }
        var line = "time=\(Self.timestamp()) level=\(level.rawValue) event=\(Self.quoted(event))"
        for (key, value) in fields() { line += " \(key)=\(Self.quoted(value))" }
        sink(line)
    }

    /// Logs at info.
    public func info(_ event: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.info, event, fields()) }
    /// Logs at warning.
    public func warning(_ event: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.warning, event, fields()) }
    /// Logs at error.
    public func error(_ event: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.error, event, fields()) }
    /// Logs at debug.
    public func debug(_ event: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.debug, event, fields()) }

    /// `elapsed` in milliseconds with two decimals, rounded ("12.34"), without Foundation's `String(format:)`
    /// (a few percent of an instance's CPU when every request logs its duration).
    static func milliseconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        guard seconds >= 0, attoseconds >= 0 else { return "0.00" }
        // 0.01 ms is 10^13 attoseconds.
        let hundredths = seconds * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || $0.isNewline }
        guard needsQuotes else { return value }
        var out = "\""
        for character in value {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out + "\""
    }

    private static func timestamp() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
    }
}
