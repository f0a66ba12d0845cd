/// Calls waiting to run together on the database actor, as one group (`writeGrouped`, `readGrouped`): each
/// call joins the group that runs next, and the first to join has the group's run scheduled.
struct WaitingGroup<Call> {
    private var calls: [Call] = []
    /// Groups taken to run so far.
    private(set) var groupsTaken = 0
    /// Calls waiting for the next group.
    var waiting: Int { calls.count }

    /// Adds `call` to the next group; true when it is the group's first, whose run is yet to be scheduled.
    mutating func add(_ call: Call) -> Bool {
        calls.append(call)
        return calls.count == 1
    }

    /// The group's calls, in arrival order, taken to run now; the next call starts a new group.
    mutating func take() -> [Call] {
        defer {
            calls = []
            groupsTaken += 1
        }
        return calls
    }
}
