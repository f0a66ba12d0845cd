internal import CNGHTTP2
import Foundation

/// The memory of one nghttp2 session: small blocks come from free lists by size class and go back to
/// them, so the allocations nghttp2 makes for every stream (its stream state, queued frames, header
/// copies, received header values) cost a few instructions once the pool is warm instead of a trip
/// through the system allocator, which falls back to its slow paths when a burst of streams opens and
/// closes together. Larger blocks, and blocks beyond the cache's bounds, go to `malloc` and `free`.
///
/// Confined to its session's thread; it must outlive the session (`HTTP2Session` deletes the session
/// first), which frees every block through it.
final class HTTP2MemoryPool {
    /// Blocks up to this many bytes are pooled, in classes of `classBytes`.
    static let largestPooled = 1024
    static let classBytes = 32
    static let classCount = largestPooled / classBytes
    /// Every block starts with this header: its class (or -1 when not pooled) and its capacity.
    static let headerBytes = 16
    /// At most this many free blocks kept per class, and this many bytes over all classes.
    static let maxFreePerClass = 1024
    static let maxCachedBytes = 1 << 20

    private let heads: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let counts: UnsafeMutablePointer<Int>
    private var cachedBytes = 0

    init() {
        heads = .allocate(capacity: Self.classCount)
        heads.initialize(repeating: nil, count: Self.classCount)
        counts = .allocate(capacity: Self.classCount)
        counts.initialize(repeating: 0, count: Self.classCount)
    }

    deinit {
        for index in 0..<Self.classCount {
            var block = heads[index]
            while let current = block {
                block = current.load(as: UnsafeMutableRawPointer?.self)
                Foundation.free(current - Self.headerBytes)
            }
        }
        heads.deallocate()
        counts.deallocate()
    }

    /// The allocator table nghttp2 takes (it copies it); `self` must outlive the session.
    var table: nghttp2_mem {
        nghttp2_mem(
            mem_user_data: Unmanaged.passUnretained(self).toOpaque(),
            malloc: { size, pool in HTTP2MemoryPool.with(pool) { $0.allocate(size) } },
            free: { block, pool in HTTP2MemoryPool.with(pool) { $0.release(block) } },
            calloc: { count, size, pool in HTTP2MemoryPool.with(pool) { $0.allocateZeroed(count, size) } },
            realloc: { block, size, pool in HTTP2MemoryPool.with(pool) { $0.reallocate(block, size) } })
    }

    private static func with<R>(_ pool: UnsafeMutableRawPointer?, _ body: (HTTP2MemoryPool) -> R) -> R {
        Unmanaged<HTTP2MemoryPool>.fromOpaque(pool!)._withUnsafeGuaranteedRef(body)
    }

    func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        if size <= Self.largestPooled {
            let index = max(0, size - 1) / Self.classBytes
            if let block = heads[index] {
                heads[index] = block.load(as: UnsafeMutableRawPointer?.self)
                counts[index] -= 1
                cachedBytes -= (index + 1) * Self.classBytes
                return block
            }
            return fresh(tag: index, capacity: (index + 1) * Self.classBytes)
        }
        return fresh(tag: -1, capacity: size)
    }

    private func fresh(tag: Int, capacity: Int) -> UnsafeMutableRawPointer? {
        guard let raw = malloc(Self.headerBytes + capacity) else { return nil }
        raw.storeBytes(of: tag, as: Int.self)
        raw.storeBytes(of: capacity, toByteOffset: 8, as: Int.self)
        return raw + Self.headerBytes
    }

    func release(_ block: UnsafeMutableRawPointer?) {
        guard let block else { return }
        let header = block - Self.headerBytes
        let tag = header.load(as: Int.self)
        let bytes = (tag + 1) * Self.classBytes
        if tag >= 0, counts[tag] < Self.maxFreePerClass, cachedBytes + bytes <= Self.maxCachedBytes {
            block.storeBytes(of: heads[tag], as: UnsafeMutableRawPointer?.self)
            heads[tag] = block
            counts[tag] += 1
            cachedBytes += bytes
        } else {
            Foundation.free(header)
        }
    }

    func allocateZeroed(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, let block = allocate(total) else { return nil }
        memset(block, 0, total)
        return block
    }

    func reallocate(_ block: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        guard let block else { return allocate(size) }
        let capacity = (block - Self.headerBytes).load(fromByteOffset: 8, as: Int.self)
        if size <= capacity { return block }
        guard let grown = allocate(size) else { return nil }
        memcpy(grown, block, capacity)
        release(block)
        return grown
    }
}
