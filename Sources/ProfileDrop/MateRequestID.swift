/// The ids of a matched drop's two mate requests; the initiator's sorts first.
public enum MateRequestID {
    /// The request the drop's initiator receives (carrying the peer's card).
    public static func toInitiator(dropID: String) -> String { "\(dropID).initiator" }
    /// The request the drop's peer receives (carrying the initiator's card).
    public static func toPeer(dropID: String) -> String { "\(dropID).peer" }
}
