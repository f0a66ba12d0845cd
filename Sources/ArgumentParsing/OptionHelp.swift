/// The OPTIONS part of a help text, in one layout for every program: the option (with its alias and
/// placeholder) in a left column, its help beside it, wrapped to the width.
public enum OptionHelp {
    /// The rows of `options` (refused ones left out), then `extra` (options the program reads before
    /// parsing, such as `--version`) and `-h, --help`, as lines.
    public static func lines(_ options: [OptionSpec], extra: [(String, String)] = [], width: Int = 110) -> [String] {
        let rows =
            options.filter(\.isListed).map { spec -> (String, String) in
                let alias = spec.short.map { "-\($0), " } ?? ""
                let left = alias + "--\(spec.name)" + (spec.value.map { " <\($0)>" } ?? "")
                return (left, spec.help + (spec.repeatable ? " (repeatable)" : ""))
            } + extra + [("-h, --help", "Show this help.")]
        return columns(rows, width: width)
    }

    /// Two columns: each left text padded to a common column (at most 34 wide; a longer one gets a line of
    /// its own), each right text wrapped at word boundaries to `width`.
    public static func columns(_ rows: [(String, String)], width: Int = 110) -> [String] {
        let column = min(34, (rows.map(\.0.count).max() ?? 0) + 2)
        let indent = String(repeating: " ", count: column + 2)
        var lines: [String] = []
        for (left, right) in rows {
            let wrapped = wrap(right, width: max(20, width - column - 2))
            if left.count >= column {
                lines.append("  " + left)
                lines += wrapped.map { indent + $0 }
            } else {
                lines.append("  " + left.padding(to: column) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { indent + $0 }
            }
        }
        return lines
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}

extension String {
    fileprivate func padding(to length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
