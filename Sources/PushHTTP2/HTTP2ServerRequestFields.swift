/// The values of the header fields a handler asked for (``HTTP2ServerHandler/requestFields``), of one
/// request received whole: what a handler that answers from a few fields gets instead of an
/// ``HTTP2ServerRequest``, with no string or array made per request.
///
/// Valid only during the ``HTTP2ServerHandler/connection(_:didReceiveFields:)`` call that hands it over
/// (its storage is used for a later request after that): copy what is needed later.
public struct HTTP2ServerRequestFields {
    /// The stream the request arrived on.
    public let streamID: Int32
    /// The connection's capture, which outlives the call that hands this over.
    unowned(unsafe) let capture: FieldCapture
    let slot: Int

    /// Calls `body` with the value of the `index`th field of ``HTTP2ServerHandler/requestFields`` (the
    /// first one received when the request repeated it), or nil when the request did not have it.
    public func withValue<R>(_ index: Int, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        capture.withValue(slot: slot, index: index, body)
    }

    /// The value of the `index`th field as a string, or nil when the request did not have it.
    public func string(_ index: Int) -> String? {
        withValue(index) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Whether the `index`th field's value starts with `prefix`.
    public func value(_ index: Int, hasPrefix prefix: StaticString) -> Bool {
        withValue(index) { value in
            guard let value, value.count >= prefix.utf8CodeUnitCount else { return false }
            return prefix.withUTF8Buffer { bytesEqual(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(rebasing: value.prefix($0.count))) }
        }
    }
}

/// The field names a handler asked for and, per request being received (by pool slot), the values
/// captured so far: in one block of memory with a fixed region per slot (the value ranges, then the
/// value bytes), so capturing touches no array, no reference count and no allocator once the block has
/// grown to the connection's concurrent streams. A value that does not fit its slot's region is kept
/// aside in an array (rare: ids and paths are far shorter). Confined to its connection's loop thread.
final class FieldCapture {
    /// The names, one after the other, and where each ends (raw memory: matched on every header field).
    private let names: UnsafeMutableRawPointer
    private let ends: UnsafeMutablePointer<Int>
    let count: Int
    /// Bytes of values a slot's region holds.
    static let valueBytes = 448
    private let stride: Int
    private var block: UnsafeMutableRawPointer
    private var slots: Int
    private var overflow: [Int: [Int: [UInt8]]] = [:]

    init(names: [String]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for name in names {
            bytes.append(contentsOf: name.utf8)
            ends.append(bytes.count)
        }
        self.names = .allocate(byteCount: max(1, bytes.count), alignment: 1)
        self.names.copyMemory(from: bytes, byteCount: bytes.count)
        self.ends = .allocate(capacity: max(1, ends.count))
        self.ends.initialize(from: ends, count: ends.count)
        count = names.count
        // A slot: bytes used (Int32, padded to 8), then (start, length) as two Int32 per field, then values.
        stride = 8 + 8 * names.count + Self.valueBytes
        slots = 16
        block = .allocate(byteCount: stride * slots, alignment: 8)
    }

    deinit {
        block.deallocate()
        names.deallocate()
        ends.deallocate()
    }

    /// The position of `name` among the fields asked for, or nil.
    func index(of name: UnsafeRawBufferPointer) -> Int? {
        var start = 0
        for index in 0..<count {
            let end = ends[index]
            if end - start == name.count, bytesEqual(UnsafeRawBufferPointer(start: names + start, count: end - start), name) {
                return index
            }
            start = end
        }
        return nil
    }

    /// Makes `slot` empty for a new request (growing the block to hold it).
    func reset(slot: Int) {
        if slot >= slots {
            let grown = max(slot + 1, slots * 2)
            let next = UnsafeMutableRawPointer.allocate(byteCount: stride * grown, alignment: 8)
            next.copyMemory(from: block, byteCount: stride * slots)
            block.deallocate()
            block = next
            slots = grown
        }
        let region = block + slot * stride
        region.storeBytes(of: 0, as: Int32.self)
        for index in 0..<count { region.storeBytes(of: -1, toByteOffset: 8 + 8 * index, as: Int32.self) }
        if !overflow.isEmpty { overflow[slot] = nil }
    }

    /// Keeps `value` as the `index`th field of the request in `slot`, unless one was kept already.
    func capture(slot: Int, index: Int, _ value: UnsafeRawBufferPointer) {
        let region = block + slot * stride
        guard region.load(fromByteOffset: 8 + 8 * index, as: Int32.self) < 0 else { return }
        let used = Int(region.load(as: Int32.self))
        guard used + value.count <= Self.valueBytes else {
            if overflow[slot]?[index] == nil { overflow[slot, default: [:]][index] = Array(value) }
            return
        }
        if let base = value.baseAddress { (region + 8 + 8 * count + used).copyMemory(from: base, byteCount: value.count) }
        region.storeBytes(of: Int32(used), toByteOffset: 8 + 8 * index, as: Int32.self)
        region.storeBytes(of: Int32(value.count), toByteOffset: 12 + 8 * index, as: Int32.self)
        region.storeBytes(of: Int32(used + value.count), as: Int32.self)
    }

    func withValue<R>(slot: Int, index: Int, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        let region = block + slot * stride
        let start = Int(region.load(fromByteOffset: 8 + 8 * index, as: Int32.self))
        guard start >= 0 else {
            if let kept = overflow[slot]?[index] { return kept.withUnsafeBytes { body($0) } }
            return body(nil)
        }
        let length = Int(region.load(fromByteOffset: 12 + 8 * index, as: Int32.self))
        return body(UnsafeRawBufferPointer(start: region + 8 + 8 * count + start, count: length))
    }
}

/// Whether two byte ranges are equal (byte by byte: short names, no call into a generic comparison).
@inline(__always)
func bytesEqual(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
    guard left.count == right.count else { return false }
    for index in 0..<left.count where left[index] != right[index] { return false }
    return true
}
