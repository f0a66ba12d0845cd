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
