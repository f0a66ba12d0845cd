/// Receives a stream's events on its loop thread.
public protocol IOStreamDelegate: AnyObject {
    /// TCP connected and, for TLS, the handshake finished.
    func streamDidConnect(_ stream: IOStream)
    /// Bytes arrived; the buffer is valid only during the call.
    func stream(_ stream: IOStream, didRead bytes: UnsafeRawBufferPointer)
    /// Everything queued for writing has been handed to the kernel.
    func streamDidDrain(_ stream: IOStream)
    /// The stream ended without the owner closing it; `error` says why (`.closed` for an orderly end).
    func stream(_ stream: IOStream, didCloseWith error: IOError)
}
