/// Output for tunnelled connections: writes that end where requests end (see `IOStream+Tunnel.swift`).
extension HTTP2Session {
    /// Like ``drainOutput(_:)``, but for tunnelled connections, where each `write` becomes TLS records of
    /// its own (`IOStream.writeRecord`): each write ends where a request ends (a HEADERS or DATA frame with
    /// END_STREAM, its header block complete) and holds as many whole requests as fit in `limit` bytes (a
    /// request larger than `limit` goes alone), with the frames of no request (SETTINGS, PING,
    /// WINDOW_UPDATE...) riding along. What does not make a full group yet stays staged in the session
    /// for the next call; ``writeStaged(_:)`` hands it on (as ``drainOutput(requestGroupsUpTo:_:)`` does).
    ///
    /// nghttp2 writes the HEADERS of every new stream before any DATA, so to keep each request's frames
    /// together the caller stages after each request it submits.
    func stageOutput(requestGroupsUpTo limit: Int, _ write: (UnsafeRawBufferPointer) -> Void) throws {
        var buffer = output
        var gathered = staged
        var parsed = stagedParsed
        var groupEnd = stagedGroupEnd
        var ending = stagedEnding
        defer {
            output = buffer
            (staged, stagedParsed, stagedGroupEnd, stagedEnding) = (gathered, parsed, groupEnd, ending)
        }
        while let frame = try nextOutputFrame() {
            let count = frame.count
            if gathered + count > buffer.count {
                if gathered + count <= Self.outputChunk {
                    buffer = Self.grown(buffer, keeping: gathered, toHold: gathered + count)
                } else {
                    // A request larger than a chunk (a body over 64 KB): hand on what there is.
                    if gathered > 0 { write(UnsafeRawBufferPointer(rebasing: buffer[..<gathered])) }
                    parsed = parsed == gathered ? 0 : Self.unparsed
                    groupEnd = 0
                    gathered = 0
                    if count > buffer.count {
                        write(frame)
                        parsed = Self.unparsed
                        continue
                    }
                }
            }
            (buffer.baseAddress! + gathered).copyMemory(from: frame.baseAddress!, byteCount: count)
            gathered += count
            if !prefaceSkipped, parsed == 0, gathered >= 24, buffer[0] == UInt8(ascii: "P") {
                parsed = 24  // the client's connection preface, not a frame
            }
            prefaceSkipped = true
            // Find where requests end. A frame header: length (24 bits), type, flags, stream id.
            while parsed >= 0, gathered - parsed >= 9 {
                let length = Int(buffer[parsed]) << 16 | Int(buffer[parsed + 1]) << 8 | Int(buffer[parsed + 2])
                guard gathered - parsed >= 9 + length else { break }
                let type = buffer[parsed + 3]
                let flags = buffer[parsed + 4]
                parsed += 9 + length
                if (type == 0 || type == 1) && flags & 0x1 != 0 { ending = true }  // DATA, HEADERS with END_STREAM
                // The request ends with its header block (HEADERS or CONTINUATION with END_HEADERS) or DATA.
                guard ending, type == 0 || ((type == 1 || type == 9) && flags & 0x4 != 0) else { continue }
                ending = false
                if parsed > limit, groupEnd > 0 {
                    // This request does not fit with the ones before: they go now.
                    write(UnsafeRawBufferPointer(rebasing: buffer[..<groupEnd]))
                    Self.shift(buffer, by: groupEnd, keeping: gathered)
                    parsed -= groupEnd
                    gathered -= groupEnd
                }
                groupEnd = parsed
                if groupEnd >= limit {
                    write(UnsafeRawBufferPointer(rebasing: buffer[..<groupEnd]))
                    Self.shift(buffer, by: groupEnd, keeping: gathered)
                    parsed -= groupEnd
                    gathered -= groupEnd
                    groupEnd = 0
                }
            }
        }
    }

    /// Hands on what ``stageOutput(requestGroupsUpTo:_:)`` left staged, in one write.
    func writeStaged(_ write: (UnsafeRawBufferPointer) -> Void) {
        guard staged > 0 else { return }
        write(UnsafeRawBufferPointer(rebasing: output[..<staged]))
        // nghttp2 hands out whole frames, so all that was staged is parsed; if not, frames can no longer
        // be found and the rest goes out as it comes (as by ``drainOutput(_:)``).
        stagedParsed = stagedParsed == staged ? 0 : Self.unparsed
        staged = 0
        stagedGroupEnd = 0
    }

    /// ``stageOutput(requestGroupsUpTo:_:)`` then ``writeStaged(_:)``.
    func drainOutput(requestGroupsUpTo limit: Int, _ write: (UnsafeRawBufferPointer) -> Void) throws {
        try stageOutput(requestGroupsUpTo: limit, write)
        writeStaged(write)
    }

    /// Moves the bytes of `buffer` from `offset` up to `end` to its start.
    private static func shift(_ buffer: UnsafeMutableRawBufferPointer, by offset: Int, keeping end: Int) {
        if end > offset { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + offset, byteCount: end - offset) }
    }
}
