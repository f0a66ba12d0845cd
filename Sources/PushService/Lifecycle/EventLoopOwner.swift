import APNS
import PushIO

/// Something that runs event loops of its own (an APNs client, a channel management client), so the
/// systemd watchdog can check they still turn.
protocol EventLoopOwner {
    /// The loops it runs now.
    var eventLoops: [EventLoop] { get }
}

extension APNSClient: EventLoopOwner {
    var eventLoops: [EventLoop] { [eventLoop] }
}

extension APNSChannelManagementClient: EventLoopOwner {
    var eventLoops: [EventLoop] { [eventLoop] }
}

extension SwappableSender: EventLoopOwner {
    /// The current sender's loops: a replaced one is draining and closes on its own.
    var eventLoops: [EventLoop] { (current as? any EventLoopOwner)?.eventLoops ?? [] }
}

extension SwappableChannelManager: EventLoopOwner {
    /// The current manager's loops.
    var eventLoops: [EventLoop] { (current as? any EventLoopOwner)?.eventLoops ?? [] }
}
