public import PushIO

/// Receives a client connection's life events on its loop thread.
public protocol HTTP2ClientConnectionDelegate: AnyObject {
    /// The server's first SETTINGS arrived; requests flow.
    func connectionDidBecomeReady(_ connection: HTTP2ClientConnection)
    /// The server sent GOAWAY; no new streams go out on this connection.
    func connection(_ connection: HTTP2ClientConnection, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8])
    /// The server changed SETTINGS or streams finished: the connection may take more work.
    func connectionHasCapacity(_ connection: HTTP2ClientConnection)
    /// The connection ended; `error` is nil when it was closed on purpose and drained.
    func connection(_ connection: HTTP2ClientConnection, didCloseWith error: IOError?)
}
