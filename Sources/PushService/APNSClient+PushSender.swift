import APNS

/// The real APNs client is a `PushSender`: `send` and `shutdown(deadline:)` already match.
extension APNSClient: PushSender {}
