import Testing

@testable import PushStoreSQL

/// A statement written once reads right in both databases: `?n` is PostgreSQL's `$n`, and the casts
/// PostgreSQL needs are not in SQLite's text.
@Suite struct SQLDialectTests {
    static let shared = "SELECT a FROM t WHERE b = ?1 AND (?2::text IS NULL OR c = ?2::text) AND d = ANY (?10::text[])"

    @Test func postgresNumbersParametersWithDollars() {
        #expect(
            SQLDialect.postgres.render(Self.shared)
                == "SELECT a FROM t WHERE b = $1 AND ($2::text IS NULL OR c = $2::text) AND d = ANY ($10::text[])")
    }

    @Test func sqliteDropsTheCasts() {
        #expect(
            SQLDialect.sqlite.render(Self.shared)
                == "SELECT a FROM t WHERE b = ?1 AND (?2 IS NULL OR c = ?2) AND d = ANY (?10)")
    }

    @Test func textWithNothingToChangeIsKept() {
        let plain = "SELECT count(*) FROM users WHERE id = ?1"
        #expect(SQLDialect.sqlite.render(plain) == plain)
        #expect(SQLDialect.postgres.render("SELECT 1 WHERE 'a?' = 'a?'") == "SELECT 1 WHERE 'a?' = 'a?'")
    }
}
