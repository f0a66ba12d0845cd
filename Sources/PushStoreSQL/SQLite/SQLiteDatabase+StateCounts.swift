import PostgresDriver
import PushStore
import SQLiteDriver

extension SQLiteDatabase {
    /// `StateCounts.of` the rows that `sql`, a `SELECT state, count(*) … GROUP BY state`, returns.
    func countsByState<State: RawRepresentable & Hashable & Sendable>(_ sql: String, zeroing states: [State]) throws
        -> [State: Int]
    where State.RawValue == String {
        StateCounts.of(try connection.query(sql) { ($0.string(at: 0), $0.int(at: 1)) }, zeroing: states)
    }
}
