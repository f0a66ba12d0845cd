/// How long the mock waits before answering a request (the request is decided and recorded at once).
///
/// A delay runs from the request's arrival: the read that brought its last bytes, so the requests handled
/// before it in the same read do not add their handling time to its latency.
public enum MockLatency: Sendable, Hashable {
    /// Answer at once.
    case none
    /// Answer after this delay.
    case fixed(Duration)
    /// Answer after a uniformly drawn delay in `min...max`, from the server's seeded generator.
    case jitter(min: Duration, max: Duration)

    /// The next delay.
    func delay(using generator: inout MockRandom) -> Duration {
        switch self {
        case .none: .zero
        case .fixed(let delay): max(.zero, delay)
        case .jitter(let low, let high): max(.zero, low + (high - low) * generator.unit())
        }
    }
}
