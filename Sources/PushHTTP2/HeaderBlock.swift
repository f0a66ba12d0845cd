internal import CNGHTTP2

/// Header fields packed into one byte buffer so they can be handed to nghttp2 (which copies them) without
/// a C string per field.
struct HeaderBlock {
    private var storage: [UInt8] = []
    private var spans: [(nameStart: Int, nameCount: Int, valueStart: Int, valueCount: Int)] = []

    init(_ fields: [(name: String, value: String)]) {
        storage.reserveCapacity(fields.count * 32)
        spans.reserveCapacity(fields.count)
        for field in fields { append(name: field.name, value: field.value) }
    }

    init(status: Int, fields: [(name: String, value: String)]) {
        storage.reserveCapacity(fields.count * 32 + 16)
        spans.reserveCapacity(fields.count + 1)
        append(name: ":status", value: String(status))
        for field in fields { append(name: field.name, value: field.value) }
    }

    mutating func append(name: String, value: String) {
        let nameStart = storage.count
        storage.append(contentsOf: name.utf8)
        let valueStart = storage.count
        storage.append(contentsOf: value.utf8)
        spans.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart))
    }

    func withEntries<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var copy = storage
        if copy.isEmpty { copy.append(0) }
        return copy.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let entries = spans.map { span in
                nghttp2_nv(
                    name: base + span.nameStart, value: base + span.valueStart,
                    namelen: span.nameCount, valuelen: span.valueCount, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return entries.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
