import PushHTTP2
import PushIO
import PushSync
import PushTLS

/// Answers every request with 200, echoing the body and reporting the client certificate's UID.
/// With `deferred`, answers on the loop's next turn so streams stay open for a while.
final class EchoHandler: HTTP2ServerHandler {
    let deferred: Bool
    init(deferred: Bool = false) { self.deferred = deferred }

    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest) {
        var headers = [(name: "x-path", value: request.path), (name: "x-method", value: request.method)]
        if let uid = connection.tlsInfo?.peerCertificate?.subjectUID { headers.append(("x-client-uid", uid)) }
        let fields = headers
        let streamID = request.streamID
        let body = request.body
        if deferred {
            connection.loop.execute { [unowned connection] in
                connection.respond(to: streamID, status: 200, headers: fields, body: body)
            }
        } else {
            connection.respond(to: streamID, status: 200, headers: headers, body: body)
        }
    }

    func connectionDidClose(_ connection: HTTP2ServerConnection) {}
}

/// Records a client connection's life events.
final class ConnectionEvents: HTTP2ClientConnectionDelegate, @unchecked Sendable {
    var goAways: [(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8])] = []
    var closeErrors: [String] = []

    func connectionDidBecomeReady(_ connection: HTTP2ClientConnection) {}
    func connection(_ connection: HTTP2ClientConnection, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        goAways.append((lastStreamID, errorCode, debugData))
    }
    func connectionHasCapacity(_ connection: HTTP2ClientConnection) {}
    func connection(_ connection: HTTP2ClientConnection, didCloseWith error: IOError?) {
        closeErrors.append(error?.description ?? "orderly")
    }
}

/// Answers every request it is handed; once armed, the first request makes it send GOAWAY naming that
/// request's stream as the last. Records the stream ids handed to it after arming. Loop-confined except
/// `armed`.
final class GoAwayOnFirstRequest: HTTP2ServerHandler, @unchecked Sendable {
    let armed = PThreadLock(false)
    var delivered: [Int32] = []
    var lastStreamID: Int32?

    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest) {
        connection.loop.preconditionInEventLoop()
        guard armed.withLock({ $0 }) else {
            connection.respond(to: request.streamID, status: 200, headers: [], body: [])
            return
        }
        delivered.append(request.streamID)
        if lastStreamID == nil {
            lastStreamID = request.streamID
            connection.goAway(lastStreamID: request.streamID)
        }
        connection.respond(to: request.streamID, status: 200, headers: [], body: [])
    }

    func connectionDidClose(_ connection: HTTP2ServerConnection) {}
}

/// Answers every request with 200 and records, per request, the connection's arrival time and the time it
/// was handed over. Loop-confined except `seen`.
final class ArrivalRecorder: HTTP2ServerHandler, @unchecked Sendable {
    let seen = PThreadLock<[(arrival: ContinuousClock.Instant, handled: ContinuousClock.Instant)]>([])

    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest) {
        let handled = ContinuousClock.now
        seen.withLock { $0.append((connection.receivedAt, handled)) }
        connection.respond(to: request.streamID, status: 200, headers: [], body: [])
    }

    func connectionDidClose(_ connection: HTTP2ServerConnection) {}
}
