internal import CNGHTTP2
import PushIO

/// The header fields of one response, written as bytes straight into the header block that goes to
/// nghttp2 (``HTTP2ServerConnection/respond(to:status:maxFields:valueBytes:_:)``): no string, array or
/// allocation per response. Names are static strings, which nghttp2 uses in place.
public struct HTTP2ResponseFields: ~Copyable {
    private let entries: UnsafeMutablePointer<nghttp2_nv>
    private let maxEntries: Int
    private let storage: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0
    private var used = 0

    init(entries: UnsafeMutablePointer<nghttp2_nv>, maxEntries: Int, storage: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.entries = entries
        self.maxEntries = maxEntries
        self.storage = storage
        self.capacity = capacity
    }

    var fields: UnsafePointer<nghttp2_nv> { UnsafePointer(entries) }

    /// Adds `name: value` (the value's bytes are copied). `indexed: false` for a value that changes with
    /// every response (an id): it is sent as a literal never indexed, so it does not churn either side's
    /// HPACK table. False, and nothing added, when the fields or bytes asked for are used up.
    @discardableResult
    public mutating func add(_ name: StaticString, _ value: UnsafeRawBufferPointer, indexed: Bool = true) -> Bool {
        add(name, length: value.count, indexed: indexed) { target in
            if let base = value.baseAddress { target.baseAddress!.copyMemory(from: base, byteCount: value.count) }
        }
    }

    /// Adds `name` with a value of `length` bytes that `fill` writes in place.
    @discardableResult
    public mutating func add(
        _ name: StaticString, length: Int, indexed: Bool = true, _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) -> Bool {
        guard count < maxEntries, used + length <= capacity else { return false }
        let value = storage + used
        fill(UnsafeMutableRawBufferPointer(start: value, count: length))
        used += length
        var flags = NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue
        if !indexed { flags |= NGHTTP2_NV_FLAG_NO_INDEX.rawValue }
        (entries + count).initialize(
            to: nghttp2_nv(
                name: UnsafeMutablePointer(mutating: name.utf8Start), value: value, namelen: name.utf8CodeUnitCount,
                valuelen: length, flags: UInt8(flags)))
        count += 1
        return true
    }
}

extension HTTP2ServerConnection {
    /// Answers stream `streamID` with `status`, no body and the header fields `write` adds (at most
    /// `maxFields`, their values at most `valueBytes` in all), laid out on the stack: the cheapest answer,
    /// for servers under load. Ignored when the stream is gone (the client reset it).
    public func respond(
        to streamID: Int32, status: Int, maxFields: Int, valueBytes: Int, _ write: (inout HTTP2ResponseFields) -> Void
    ) {
        loop.preconditionInEventLoop()
        guard let session, !isClosed else { return }
        let submitted = withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: maxFields + 1) { entries in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: valueBytes + 3) { storage in
                var fields = HTTP2ResponseFields(
                    entries: entries.baseAddress!, maxEntries: maxFields + 1, storage: storage.baseAddress!,
                    capacity: valueBytes + 3)
                let code = UInt16(min(max(status, 100), 999))
                fields.add(":status", length: 3) { digits in
                    digits[0] = UInt8(truncatingIfNeeded: 48 + code / 100)
                    digits[1] = UInt8(truncatingIfNeeded: 48 + code / 10 % 10)
                    digits[2] = UInt8(truncatingIfNeeded: 48 + code % 10)
                }
                write(&fields)
                return session.submitResponse(streamID: streamID, fields: fields.fields, count: fields.count)
            }
        }
        if submitted { flushUnlessReceiving() }
    }
}
