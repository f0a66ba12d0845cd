public import PushHTTP

/// Why a client request ended without a response.
public enum HTTP2ClientFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server never processed it (queued locally, above a GOAWAY's last stream id, or REFUSED_STREAM):
    /// sending it again cannot duplicate it.
    case notProcessed(String)
    /// The stream was open when the connection broke or the stream was reset: the server may or may not
    /// have acted on it.
    case outcomeUnknown(String)
    /// The caller cancelled it before it was written.
    case cancelled

    /// One human line.
    public var description: String {
        switch self {
        case .notProcessed(let why): "not processed: \(why)"
        case .outcomeUnknown(let why): "outcome unknown: \(why)"
        case .cancelled: "cancelled"
        }
    }
}

/// What a request ends with.
public typealias HTTP2Result = Result<HTTPResponse, HTTP2ClientFailure>
