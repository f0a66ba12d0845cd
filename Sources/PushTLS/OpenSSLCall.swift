internal import COpenSSL

/// The one place OpenSSL return codes become Swift errors.
///
/// Every wrapper calls `check` right after a C call; on failure the thrown `TLSError` names the
/// function and carries (and so clears) OpenSSL's thread-local error queue.
enum OpenSSLCall {
    /// Throws when `success` is false, draining OpenSSL's error queue into the error.
    static func check(
        _ success: Bool,
        _ function: String,
        kind: TLSError.Kind = .openSSL,
        _ message: @autoclosure () -> String? = nil
    ) throws {
        guard !success else { return }
        let queue = errorQueue()
        throw TLSError(kind, message() ?? "\(function) failed", function: function, openSSLErrors: queue)
    }

    /// Checks a C status where 1 (or any positive value) means success.
    static func check(
        status: Int32,
        _ function: String,
        kind: TLSError.Kind = .openSSL,
        _ message: @autoclosure () -> String? = nil
    ) throws {
        try check(status > 0, function, kind: kind, message())
    }

    /// Unwraps a pointer a C function returned, throwing when it is NULL.
    @discardableResult
    static func check<Pointer>(
        _ pointer: Pointer?,
        _ function: String,
        kind: TLSError.Kind = .openSSL,
        _ message: @autoclosure () -> String? = nil
    ) throws -> Pointer {
        try check(pointer != nil, function, kind: kind, message())
        return pointer!
    }

    /// Drains OpenSSL's error queue for this thread, oldest first, as readable lines.
    static func errorQueue() -> [String] {
        var lines: [String] = []
        while true {
            var data: UnsafePointer<CChar>?
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            var line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if flags & ERR_TXT_STRING != 0, let data, data.pointee != 0 {
                line += " (" + String(cString: data) + ")"
            }
            lines.append(line)
        }
        return lines
    }

    /// Empties the queue without reporting, after an expected failure (e.g. end of a PEM list).
    static func clearErrors() {
        ERR_clear_error()
    }
}
