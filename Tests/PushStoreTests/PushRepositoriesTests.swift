import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Every repository of every backend belongs to that backend (its type is named after it, or runs on its
/// database): a backend whose set held an in-memory repository would lose that data on restart without an
/// error. The properties are walked by reflection, so
/// a repository added to `PushRepositories` is covered without editing this test.
@Suite struct PushRepositoriesTests {
    /// The type names of every property of `set`, by property name.
    static func repositoryTypes(_ set: PushRepositories) -> [String: String] {
        var types: [String: String] = [:]
        for child in Mirror(reflecting: set).children {
            guard let label = child.label else { continue }
            types[label] = String(describing: type(of: child.value))
        }
        return types
    }

    static let expected = [
        "users", "devices", "outbox", "drops", "mateRequests", "idempotency", "database", "webhooks", "channels",
        "activityTokens",
    ]

    @Test(arguments: StoreKind.allCases)
    func everyRepositoryIsTheBackends(_ kind: StoreKind) async throws {
        let set: PushRepositories
        let prefix: String
        switch kind {
        case .sqlite:
            set = PushRepositories(database: try SQLiteDatabase(path: ":memory:"))
            prefix = "SQLite"
        case .memory:
            set = .inMemory()
            prefix = "InMemory"
        case .postgres:
            let url = try await PostgresTestCluster.shared().createDatabase()
            set = PushRepositories(database: try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller))
            prefix = "Postgres"
        }
        let types = Self.repositoryTypes(set)
        #expect(types.keys.sorted() == Self.expected.sorted(), "PushRepositories' properties changed: list them here")
        for (name, type) in types {
            // A repository written once for both SQL databases is generic over the database it runs on
            // (`SQLUserRepository<SQLiteDatabase>`): that database must be the backend's.
            let backend = type.hasPrefix(prefix) || type.hasSuffix("<\(prefix)Database>")
            #expect(backend, "\(kind) backend's \(name) is \(type), not a \(prefix) repository")
        }
    }
}
