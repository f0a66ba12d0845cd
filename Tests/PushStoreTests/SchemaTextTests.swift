import Foundation
import Testing

@testable import PushStoreSQL

/// A shipped migration must keep doing what it did: a database records only how many steps it ran, so a
/// step whose SQL changed would leave databases migrated before and after the change with different
/// schemas. The SQL of every step of both schemas is recorded in `Fixtures/schema-migrations.sql`; the
/// text may be rebuilt (from shared pieces, reformatted), but what it says may not change.
@Suite("Schema texts")
struct SchemaTextTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/schema-migrations.sql")

    /// Every step of both schemas, each under a header line `==== <schema> <version> <name>`.
    static func recorded() -> String {
        var text = ""
        for (schema, migrations) in [("sqlite", SQLiteSchema.migrations), ("postgres", PostgresSchema.migrations)] {
            for (index, migration) in migrations.enumerated() {
                text += "==== \(schema) \(index + 1) \(migration.name)\n\(migration.sql)\n"
            }
        }
        return text
    }

    /// `sql` as the database reads it: comments dropped, white space folded, none around punctuation.
    static func normalized(_ sql: String) -> String {
        let lines = sql.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }
        var words = lines.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for mark in ["(", ")", ",", ";"] {
            words = words.replacingOccurrences(of: " " + mark, with: mark).replacingOccurrences(of: mark + " ", with: mark)
        }
        return words
    }

    /// The steps in a recorded text, by header.
    static func steps(_ text: String) -> [(header: String, sql: String)] {
        var steps: [(header: String, sql: String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("==== ") {
                steps.append((String(line), ""))
            } else if !steps.isEmpty {
                steps[steps.count - 1].sql += line + "\n"
            }
        }
        return steps
    }

    @Test("every migration of both schemas says what the recorded one says")
    func migrationsUnchanged() throws {
        let text = Self.recorded()
        if ProcessInfo.processInfo.environment["SCHEMA_TEXT_RECORD"] == "1" {
            try Data(text.utf8).write(to: Self.fixture)
        }
        let actual = Self.steps(text)
        let expected = Self.steps(try String(contentsOf: Self.fixture, encoding: .utf8))
        #expect(actual.map(\.header) == expected.map(\.header))
        for (now, then) in zip(actual, expected) where now.header == then.header {
            #expect(Self.normalized(now.sql) == Self.normalized(then.sql), "\(now.header) differs from the recorded step")
        }
    }

    @Test("the comparison ignores layout and comments, not a word")
    func normalization() {
        #expect(Self.normalized("CREATE TABLE t (\n    a  INTEGER, -- note\n    b TEXT\n);") == "CREATE TABLE t(a INTEGER,b TEXT);")
        #expect(Self.normalized("a INTEGER NOT NULL") != Self.normalized("a INTEGER"))
    }
}
