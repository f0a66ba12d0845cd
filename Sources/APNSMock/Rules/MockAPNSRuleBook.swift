import PushSync

/// The rules of one server, in the order added. Thread-safe (one `PThreadLock`): a rule with a count
/// answers exactly that many requests even when connections race for it.
final class MockAPNSRuleBook: Sendable {
    private struct Entry {
        let id: Int
        let rule: MockAPNSRule
        var matched = 0

        var status: MockAPNSRuleStatus { MockAPNSRuleStatus(id: id, rule: rule, matched: matched) }
        var exhausted: Bool { rule.times.map { matched >= $0 } ?? false }
    }

    private struct State {
        var entries: [Entry] = []
        var nextID = 0
    }

    private let state = PThreadLock(State())

    /// Adds `rule` after the others and returns its id.
    func add(_ rule: MockAPNSRule) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.entries.append(Entry(id: state.nextID, rule: rule))
            return state.nextID
        }
    }

    /// Removes rule `id`; false when there is none.
    func remove(id: Int) -> Bool {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return false }
            state.entries.remove(at: index)
            return true
        }
    }

    /// Removes every rule (ids keep growing).
    func clear() {
        state.withLock { $0.entries.removeAll() }
    }

    /// Every rule with its count, in order.
    var statuses: [MockAPNSRuleStatus] {
        state.withLock { $0.entries.map(\.status) }
    }

    /// The first rule that matches `request` and has answers left, counting this use; nil when none does.
    func take(for request: MockAPNSRequest) -> MockAPNSRule? {
        state.withLock { state in
            guard !state.entries.isEmpty else { return nil }
            for index in state.entries.indices where !state.entries[index].exhausted {
                guard state.entries[index].rule.match.matches(request) else { continue }
                state.entries[index].matched += 1
                return state.entries[index].rule
            }
            return nil
        }
    }
}
