import PostgresDriver
import PushStore
import SQLiteDriver

/// Row counts per state, as both SQL backends read them.
enum StateCounts {
    /// The counts in the rows of a `SELECT state, count(*) … GROUP BY state`, read as (state name, count):
    /// each of `states` present (0 when no row names it); a name no state has is left out.
    static func of<State: RawRepresentable & Hashable>(_ rows: [(String, Int)], zeroing states: [State]) -> [State: Int]
    where State.RawValue == String {
        var counts = Dictionary(uniqueKeysWithValues: states.map { ($0, 0) })
        for (name, count) in rows {
            if let state = State(rawValue: name) { counts[state] = count }
        }
        return counts
    }
}
