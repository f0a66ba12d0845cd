package import Foundation

/// The one rule for drop state changes, shared by both repositories: only a pending drop moves.
package enum DropTransition {
    package static func apply(_ state: DropState, at now: Date, to drop: inout DropRecord) throws(PushStoreError) {
        guard drop.state == .pending, state != .pending else {
            throw .invalidTransition(dropID: drop.id, from: drop.state.rawValue, to: state.rawValue)
        }
        drop.state = state
        switch state {
        case .matched: drop.matchedAt = now.storeNormalized
        case .cancelled, .expired: drop.closedAt = now.storeNormalized
        case .pending: break
        }
    }
}
