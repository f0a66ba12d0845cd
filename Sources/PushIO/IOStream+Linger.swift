internal import CEvent
import Foundation

/// The graceful end of a stream whose output is all written.
///
/// Freeing the socket at once while bytes of the peer's wait unread makes the kernel answer with a reset,
/// and a reset drops whatever the kernel has not sent yet: the last answers a server writes right before
/// it closes (a GOAWAY followed by a close) were lost that way once writes went straight to the kernel.
/// So the write side is shut down instead (the peer gets everything written, then a FIN), and what the
/// peer still sends is read and dropped until it closes as well, or ``lingerTime`` passes; only then is
/// the socket freed. No event reaches the delegate after ``close()``.
extension IOStream {
    /// The longest a closed stream waits for the peer's own close.
    static let lingerTime: Duration = .seconds(2)

    func lingerThenRelease() {
        guard let bev, lingerTimer == nil else { return }
        let fd = bufferevent_getfd(bev)
        guard connected, tunnel == nil, fd >= 0 else { return release() }
        delegate = nil
        directSSL = nil
        directFD = -1
        _ = shutdown(fd, Int32(SHUT_WR))
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bev, ioStreamLingerRead, nil, ioStreamLingerEvent, context)
        bufferevent_enable(bev, Int16(EV_READ))
        let timer = LoopTimer(loop: loop) { [unowned self] in self.release() }
        timer.schedule(after: Self.lingerTime)
        lingerTimer = timer
    }
}

private func ioStreamLingerRead(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let input = bufferevent_get_input(bev)
    evbuffer_drain(input, evbuffer_get_length(input))
}

private func ioStreamLingerEvent(_ bev: OpaquePointer?, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    // The peer closed, or the socket failed: nothing more to wait for.
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.release() }
}
