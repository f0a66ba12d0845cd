import APNSCore
import PushStore

/// A validated `POST /v1/drops` body.
package struct DropReportBody: Sendable, Equatable {
    /// The reporting user.
    package var userID: String
    /// The user the phone was dropped onto.
    package var peerID: String
    /// The measured distance in metres.
    package var distance: Double
    /// The direction to the peer, when the phone measured one.
    package var direction: SIMD3<Double>?

    /// Parses and checks the body; throws a 400 `APIError`.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(["user_id", "peer_id", "distance_m", "direction"])
        userID = try body.userID("user_id")
        peerID = try body.userID("peer_id")
        distance = try body.requiredDouble("distance_m")
        guard let vector = try body.object("direction") else { return }
        try vector.checkKnown(["x", "y", "z"])
        func component(_ key: String) throws(APIError) -> Double {
            guard let value = try vector.double(key) else { throw .invalidField("direction.\(key)", "is required") }
            return value
        }
        direction = SIMD3(try component("x"), try component("y"), try component("z"))
    }
}
