import Foundation

/// One JSON object printed as a single line on stdout.
struct Report {
    private var fields: [(String, String)] = []

    init(_ benchmark: String) {
        add("bench", benchmark)
    }

    mutating func add(_ key: String, _ value: String) {
        fields.append((key, Self.quoted(value)))
    }

    mutating func add(_ key: String, _ value: Int) {
        fields.append((key, String(value)))
    }

    mutating func add(_ key: String, _ value: Double) {
        fields.append((key, value.isFinite ? String(format: "%.3f", value) : "null"))
    }

    /// A JSON array of numbers (non-finite values as `null`).
    mutating func add(_ key: String, _ values: [Double]) {
        let items = values.map { $0.isFinite ? String(format: "%.3f", $0) : "null" }
        fields.append((key, "[" + items.joined(separator: ",") + "]"))
    }

    mutating func add(_ key: String, _ value: Bool) {
        fields.append((key, value ? "true" : "false"))
    }

    /// `{"k":v,...}`.
    var line: String {
        "{" + fields.map { "\(Self.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    func print() {
        Output.line(line)
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Writes whole lines to stdout and flushes, so a parent reading a pipe sees them at once.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Process CPU time (user + system) from `getrusage(RUSAGE_SELF)`, in microseconds.
enum ProcessCPU {
    static func microseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
        let system = Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
        return user + system
    }

    /// Peak resident set size in KiB.
    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}

/// Seconds of a `Duration`.
extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// The `q`-quantile (0...1) of sorted values, nearest rank.
func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
