import Foundation

/// Writing to stdout and stderr without buffering surprises (every write is flushed).
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func outRaw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func errRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether stdout is a terminal.
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }

    /// Prints rows as a table whose columns are padded to their widest cell.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            out(cells.joined(separator: "  "))
        }
    }
}
