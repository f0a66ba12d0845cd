internal import CNGHTTP2

/// The header fields of one outgoing message, laid out for nghttp2 only while it is being submitted.
///
/// It holds the caller's strings as they are (no copy when it is made); ``withEntries(_:)`` copies their
/// bytes into one stack buffer and points the `nghttp2_nv` entries (also on the stack) into it, so a
/// request or response costs no heap allocation here. nghttp2 copies names and values itself (flag NONE).
struct HeaderBlock {
    /// The pseudo-header fields that come first.
    enum Pseudo {
        case none
        case request(method: String, scheme: String, authority: String, path: String)
        case status(Int)
    }

    private let pseudo: Pseudo
    /// Fields shared with other messages, written before `fields`.
    private let shared: [(name: String, value: String)]
    private let fields: [(name: String, value: String)]
    /// Names of fields whose values change with every message (ids): sent as literals never indexed
    /// (HPACK), so they do not churn the dynamic table of either side.
    private let unindexed: [String]

    init(_ fields: [(name: String, value: String)], unindexed: [String] = []) {
        pseudo = .none
        shared = []
        self.fields = fields
        self.unindexed = unindexed
    }

    init(status: Int, fields: [(name: String, value: String)], unindexed: [String] = []) {
        pseudo = .status(status)
        shared = []
        self.fields = fields
        self.unindexed = unindexed
    }

    init(
        method: String, scheme: String, authority: String, path: String, shared: [(name: String, value: String)] = [],
        fields: [(name: String, value: String)], unindexed: [String] = []
    ) {
        pseudo = .request(method: method, scheme: scheme, authority: authority, path: path)
        self.shared = shared
        self.fields = fields
        self.unindexed = unindexed
    }

    func withEntries<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var count = shared.count + fields.count
        var bytes = 0
        switch pseudo {
        case .none: break
        case .request(let method, let scheme, let authority, let path):
            count += 4
            bytes += 7 + method.utf8.count + 7 + scheme.utf8.count + 10 + authority.utf8.count + 5 + path.utf8.count
        case .status:
            count += 1
            bytes += 7 + 3
        }
        for field in shared { bytes += field.name.utf8.count + field.value.utf8.count }
        for field in fields { bytes += field.name.utf8.count + field.value.utf8.count }
        return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, count)) { entries in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, bytes)) { storage in
                var writer = EntryWriter(entries: entries.baseAddress!, storage: storage.baseAddress!)
                switch pseudo {
                case .none: break
                case .request(let method, let scheme, let authority, let path):
                    writer.add(":method", method)
                    writer.add(":scheme", scheme)
                    writer.add(":authority", authority)
                    writer.add(":path", path)
                case .status(let status): writer.add(":status", Self.statusText(status))
                }
                for field in shared {
                    writer.add(field.name, field.value, indexed: unindexed.isEmpty || !unindexed.contains(field.name))
                }
                for field in fields {
                    writer.add(field.name, field.value, indexed: unindexed.isEmpty || !unindexed.contains(field.name))
                }
                return body(entries.baseAddress!, writer.count)
            }
        }
    }

    /// Three digits for a valid status; anything else as its decimal text (at most 3 bytes are reserved,
    /// so a wider value is clamped to what HTTP allows).
    private static func statusText(_ status: Int) -> String { String(min(max(status, 0), 999)) }
}

/// Appends name/value pairs to stack buffers sized beforehand. Uninitialized entries are never read.
private struct EntryWriter {
    let entries: UnsafeMutablePointer<nghttp2_nv>
    let storage: UnsafeMutablePointer<UInt8>
    var count = 0
    var offset = 0

    mutating func add(_ name: String, _ value: String, indexed: Bool = true) {
        let name = copy(name)
        let value = copy(value)
        let flags = indexed ? NGHTTP2_NV_FLAG_NONE.rawValue : NGHTTP2_NV_FLAG_NO_INDEX.rawValue
        (entries + count).initialize(
            to: nghttp2_nv(
                name: name.start, value: value.start, namelen: name.count, valuelen: value.count, flags: UInt8(flags)))
        count += 1
    }

    private mutating func copy(_ text: String) -> (start: UnsafeMutablePointer<UInt8>, count: Int) {
        let start = storage + offset
        let copied =
            text.utf8.withContiguousStorageIfAvailable { source -> Int in
                guard let base = source.baseAddress, source.count > 0 else { return 0 }
                start.update(from: base, count: source.count)
                return source.count
            }
            ?? {
                var index = 0
                for byte in text.utf8 {
                    start[index] = byte
                    index += 1
                }
                return index
            }()
        offset += copied
        return (start, copied)
    }
}
