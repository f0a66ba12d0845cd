import PushSync

/// The bookkeeping of a resource that can be replaced while it is used (an APNs client, a channel
/// management client), shared by `SwappableSender` and `SwappableChannelManager`.
///
/// Work takes the current generation with `acquire` and gives it back with `release`; `replace(with:)`
/// makes a new generation current and retires the old one, which is handed to `retire` as soon as the last
/// work it took is released (at once when it had none). Thread-safe: its state sits behind one lock, and
/// `retire` runs outside it.
final class Generations<Resource: Sendable>: Sendable {
    private struct Generation {
        var resource: Resource
        /// Units of work handed to it and not released yet.
        var pending = 0
        /// Replaced: retire it once `pending` reaches 0.
        var retired = false
    }

    private struct State {
        var current = 0
        var generations: [Int: Generation] = [:]
        var next = 1
    }

    private let state: PThreadLock<State>
    private let retire: @Sendable (Resource) -> Void

    /// Starts with `initial` as generation 0; `retire` is called once per replaced resource once it is idle.
    init(_ initial: Resource, retire: @escaping @Sendable (Resource) -> Void) {
        state = PThreadLock(State(current: 0, generations: [0: Generation(resource: initial)]))
        self.retire = retire
    }

    /// The resource new work goes to.
    var current: Resource {
        state.withLock { $0.generations[$0.current]!.resource }
    }

    /// Resources replaced but still finishing their work.
    var draining: Int {
        state.withLock { $0.generations.values.filter(\.retired).count }
    }

    /// Makes `resource` the one new work uses; the previous one is retired once its work is released.
    func replace(with resource: Resource) {
        let idle: Resource? = state.withLock { state in
            let old = state.current
            state.current = state.next
            state.generations[state.next] = Generation(resource: resource)
            state.next += 1
            state.generations[old]?.retired = true
            guard let generation = state.generations[old], generation.pending == 0 else { return nil }
            state.generations[old] = nil
            return generation.resource
        }
        if let idle { retire(idle) }
    }

    /// Takes `count` units of work on the current resource; give them back with `release(_:_:)` and the
    /// returned generation.
    func acquire(_ count: Int) -> (generation: Int, resource: Resource) {
        state.withLock { state in
            state.generations[state.current]!.pending += count
            return (state.current, state.generations[state.current]!.resource)
        }
    }

    /// Gives back `count` units of work taken from `generation`; retires it if it was replaced and is now idle.
    func release(_ generation: Int, _ count: Int) {
        let idle: Resource? = state.withLock { state in
            guard var entry = state.generations[generation] else { return nil }
            entry.pending -= count
            if entry.retired, entry.pending <= 0 {
                state.generations[generation] = nil
                return entry.resource
            }
            state.generations[generation] = entry
            return nil
        }
        if let idle { retire(idle) }
    }

    /// Every resource still held (the current one and those draining), for shutdown: the draining ones
    /// are forgotten, so `retire` is not called for them afterwards.
    func shutdownAll() -> [Resource] {
        state.withLock { state in
            let all = state.generations.values.map(\.resource)
            state.generations = state.generations.filter { $0.key == state.current }
            return all
        }
    }
}
