/// A failure inside the HTTP/2 layer; `function` names the nghttp2 call when there is one.
public struct HTTP2Error: Error, Sendable, CustomStringConvertible {
    /// The nghttp2 function that failed, if any.
    public let function: String?
    /// nghttp2's error code (negative) or an HTTP/2 error code.
    public let code: Int
    /// A human line.
    public let message: String

    /// An error with the given parts.
    public init(function: String?, code: Int, message: String) {
        self.function = function
        self.code = code
        self.message = message
    }

    /// `function: message (code)`.
    public var description: String {
        (function.map { "\($0): " } ?? "") + "\(message) (\(code))"
    }
}

/// HTTP/2 error codes (RFC 9113 §7) used by this package.
public enum HTTP2ErrorCode {
    /// Graceful shutdown.
    public static let noError: UInt32 = 0x0
    /// Protocol error detected.
    public static let protocolError: UInt32 = 0x1
    /// Implementation fault.
    public static let internalError: UInt32 = 0x2
    /// The stream was refused before any processing.
    public static let refusedStream: UInt32 = 0x7
    /// The stream is no longer needed.
    public static let cancel: UInt32 = 0x8
    /// Excessive load.
    public static let enhanceYourCalm: UInt32 = 0xb
}
