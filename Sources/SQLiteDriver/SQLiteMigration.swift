/// One step of a schema migration; step *n* of an ordered list brings `user_version` to *n*.
package struct SQLiteMigration: Sendable {
    /// A short name for logs and errors.
    package let name: String
    /// The SQL run inside the step's transaction.
    package let sql: String

    /// A step named `name` that runs `sql`.
    package init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}
