/// A small, fast, seedable generator (SplitMix64): jitter and fault rolls repeat for a given seed, and
/// per-connection `apns-id`s cost no system call.
struct MockRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that yields the same sequence for the same `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// A generator seeded from the system's random source.
    static func systemSeeded() -> MockRandom {
        var system = SystemRandomNumberGenerator()
        return MockRandom(seed: system.next())
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<1`.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
