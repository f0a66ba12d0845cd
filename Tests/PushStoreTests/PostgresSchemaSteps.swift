import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport

@testable import PushStore
@testable import PushStoreSQL

/// A new database of the throwaway cluster at the version before `step` (the migrations up to it, not
/// including it), open as instance "old" for writing rows as that version left them, with its URL and
/// how many steps it has.
func databaseBefore(_ step: SchemaMigration) async throws -> (url: String, old: PostgresDatabase, steps: Int) {
    let url = try await PostgresTestCluster.shared().createDatabase()
    let previous = Array(PostgresSchema.migrations.prefix { $0.name != step.name })
    let old = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "old", clock: .caller, migrations: previous)
    return (url, old, previous.count)
}
