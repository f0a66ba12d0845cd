import APNSCore
import Foundation
import PushSync

/// Device-token state a test sets up: registered per topic, unregistered at a time, expired. Thread-safe.
final class MockAPNSTokenRegistry: Sendable {
    private struct State {
        var tokensByTopic: [String: Set<String>] = [:]
        var unregistered: [String: Date] = [:]
        var expired: Set<String> = []
    }

    private let state = PThreadLock(State())

    /// Registers `token` for `topic` and clears any unregistered or expired mark it had.
    func register(_ token: String, topic: String) {
        let token = token.lowercased()
        state.withLock { state in
            state.tokensByTopic[topic, default: []].insert(token)
            state.unregistered[token] = nil
            state.expired.remove(token)
        }
    }

    /// Marks `token` unregistered since `date`.
    func unregister(_ token: String, at date: Date) {
        state.withLock { $0.unregistered[token.lowercased()] = date }
    }

    /// Marks `token` expired.
    func expire(_ token: String) {
        state.withLock { _ = $0.expired.insert(token.lowercased()) }
    }

    /// Forgets every registration and mark.
    func clear() {
        state.withLock { $0 = State() }
    }

    /// The token-state rejection for a request that passed every request rule, or nil.
    /// Order: ExpiredToken, Unregistered (with its timestamp), DeviceTokenNotForTopic (only for a topic
    /// that has at least one registered token; a topic with none accepts any well-formed token).
    func rejection(token: String, topic: String) -> (reason: APNSRejectionReason, timestamp: Date?)? {
        state.withLock { state in
            if state.expired.contains(token) { return (.expiredToken, nil) }
            if let date = state.unregistered[token] { return (.unregistered, date) }
            if let tokens = state.tokensByTopic[topic], !tokens.contains(token) { return (.deviceTokenNotForTopic, nil) }
            return nil
        }
    }
}
