import PostgresDriver
import PushStore
import SQLiteDriver

/// Row counts per state from the rows of a `SELECT state, count(*) … GROUP BY state`, read as (state name,
/// count): each of `states` present (0 when no row names it); a name no state has is left out.
func stateCounts<State: RawRepresentable & Hashable>(_ rows: [(String, Int)], zeroing states: [State]) -> [State: Int]
where State.RawValue == String {
    var counts = Dictionary(uniqueKeysWithValues: states.map { ($0, 0) })
    for (name, count) in rows {
        if let state = State(rawValue: name) { counts[state] = count }
    }
    return counts
}

extension PostgresDatabase {
    /// `stateCounts` of the rows that `sql`, a `SELECT state, count(*) … GROUP BY state`, returns. With
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
        return stateCounts(rows, zeroing: states)
    }
}

extension SQLiteDatabase {
    /// `stateCounts` of the rows that `sql`, a `SELECT state, count(*) … GROUP BY state`, returns.
    func countsByState<State: RawRepresentable & Hashable & Sendable>(_ sql: String, zeroing states: [State]) throws
        -> [State: Int]
    where State.RawValue == String {
        stateCounts(try connection.query(sql) { ($0.string(at: 0), $0.int(at: 1)) }, zeroing: states)
    }
}
