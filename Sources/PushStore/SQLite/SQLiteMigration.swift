/// One step of a schema migration; step *n* of an ordered list brings `user_version` to *n*.
struct SQLiteMigration: Sendable {
    /// A short name for logs and errors.
    let name: String
    /// The SQL run inside the step's transaction.
    let sql: String
}
