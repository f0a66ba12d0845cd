/// How long the mock waits before answering a request (the request is decided and recorded at once).
public enum MockLatency: Sendable, Hashable {
    /// Answer at once.
    case none
    /// Answer after this many seconds.
    case fixed(Double)
    /// Answer after a uniformly drawn delay in `min...max` seconds, from the server's seeded generator.
    case jitter(min: Double, max: Double)

    /// The next delay in seconds.
    func delay(using generator: inout MockRandom) -> Double {
        switch self {
        case .none: 0
        case .fixed(let seconds): max(0, seconds)
        case .jitter(let low, let high): max(0, low + (high - low) * generator.unit())
        }
    }
}
