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
        // nghttp2 copies names and values (flag NONE) and never writes through these pointers, so the
        // storage is lent as it is and the entries live on the stack.
        if storage.isEmpty {
            var zero: UInt8 = 0
            return withUnsafeMutablePointer(to: &zero) { entries(base: $0, body) }
        }
        return storage.withUnsafeBufferPointer { entries(base: UnsafeMutablePointer(mutating: $0.baseAddress!), body) }
    }

    private func entries<R>(base: UnsafeMutablePointer<UInt8>, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, spans.count)) { entries in
            for (index, span) in spans.enumerated() {
                (entries.baseAddress! + index).initialize(
                    to: nghttp2_nv(
                        name: base + span.nameStart, value: base + span.valueStart,
                        namelen: span.nameCount, valuelen: span.valueCount, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return body(entries.baseAddress!, spans.count)
        }
    }
}
