/// One step of a schema (`SQLiteSchema`, `PostgresSchema`): step *n* of the ordered list brings a database
/// to version *n*. A database records only its version (and, on PostgreSQL, each step's name), never a
/// step's text: a step may be rewritten as long as what it does stays the same.
struct SchemaMigration: Sendable {
    /// A short name, recorded with the version on PostgreSQL.
    let name: String
    /// The SQL the step runs in one transaction (several statements; no parameters).
    let sql: String

    /// The step as the drivers' `migrate` takes it.
    var step: (name: String, sql: String) { (name, sql) }
}
