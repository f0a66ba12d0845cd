import Foundation

/// Seconds on a clock that never jumps (CLOCK_MONOTONIC), for timeouts, deadlines and latencies.
public enum MonotonicClock {
    /// Now, in seconds since an arbitrary fixed point.
    public static var now: Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
