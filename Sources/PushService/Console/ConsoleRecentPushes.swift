import PushSync

/// The pushes to each user this instance accepted lately, newest first, for the console's user page.
///
/// The outbox keeps rows by push and token, not by user, so the user page lists the push ids kept here
/// (at most `perUser` for each of the last `users` users) and reads each push's rows from the outbox.
final class ConsoleRecentPushes: Sendable {
    private struct State {
        var byUser: [String: [String]] = [:]
        var order: [String] = []
    }

    let perUser: Int
    let users: Int
    private let state = PThreadLock(State())

    init(perUser: Int = 20, users: Int = 1_000) {
        self.perUser = perUser
        self.users = users
    }

    /// Notes that push `pushID` went to `userID`'s devices.
    func record(pushID: String, userID: String) {
        state.withLock { state in
            if state.byUser[userID] == nil {
                state.order.append(userID)
                if state.order.count > users { state.byUser[state.order.removeFirst()] = nil }
            }
            var list = state.byUser[userID, default: []]
            list.insert(pushID, at: 0)
            if list.count > perUser { list.removeLast(list.count - perUser) }
            state.byUser[userID] = list
        }
    }

    /// `userID`'s recent push ids, newest first.
    func pushes(userID: String) -> [String] {
        state.withLock { $0.byUser[userID] ?? [] }
    }
}
