import PostgresDriver
import PushStore
import SQLiteDriver

extension PostgresDatabase {
    /// `StateCounts.of` the rows that `sql`, a `SELECT state, count(*) … GROUP BY state`, returns. With
    /// `pendingByIndex`, in a transaction of its own that reads through the pending rows' partial index
    /// (`PostgresConnection.readPendingRowsByIndex`).
    func countsByState<State: RawRepresentable & Hashable & Sendable>(
        _ sql: String, zeroing states: [State], pendingByIndex: Bool = false
    ) async throws -> [State: Int] where State.RawValue == String {
        let read: @Sendable (PostgresConnection) throws -> [(String, Int)] = { db in
            try db.query(sql).map { ($0.string(at: 0), $0.int(at: 1)) }
        }
        let rows =
            pendingByIndex
            ? try await transaction { db in
                db.readPendingRowsByIndex()
                return try read(db)
            }
            : try await withConnection(read)
        return StateCounts.of(rows, zeroing: states)
    }
}
