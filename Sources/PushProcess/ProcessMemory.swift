internal import CMalloc

/// Process-wide allocator settings for a long-running server.
public enum ProcessMemory {
    /// Serves allocations of at least `bytes` with their own `mmap`, returned to the system when freed.
    ///
    /// glibc starts at 128 KiB but raises the threshold to the size of each mmapped block that is freed
    /// (up to 32 MiB). A server that builds and drops large buffers per request (request bodies, result
    /// arrays, answers) then gets them from its per-thread arenas instead, where freed space is mostly
    /// kept resident and fragmented across arenas. A fixed threshold stops that drift. Returns false when
    /// the allocator refused the setting.
    @discardableResult
    public static func fixMmapThreshold(bytes: Int = 256 << 10) -> Bool {
        push_malloc_set_mmap_threshold(Int32(clamping: bytes)) == 1
    }
}
