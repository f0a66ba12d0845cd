import APNSCore
import PushStore
import PushTLS

/// The `apns-collapse-id` a device row without its own is sent with: derived from the row's id, so every
/// attempt of one notification carries the same value, and a resend after an unknown outcome (a reset, or a
/// kill between APNs' answer and the committed outcome) replaces the first copy on the device instead of
/// showing a second one. Rows are distinct notifications with distinct ids, so nothing else collapses.
///
/// Broadcast rows never get one: Apple's header table for broadcast requests ("Sending broadcast push
/// notification requests to APNs") lists no `apns-collapse-id`, and a channel update replaces the Live
/// Activity's content anyway.
package enum DerivedCollapseID {
    /// The row id itself when it is 1–64 printable ASCII bytes (the ids the service makes are 36-character
    /// UUIDs), else the 64 lowercase hex digits of the SHA-256 of its UTF-8 bytes: at most 64 bytes either
    /// way, as APNs requires.
    package static func of(_ id: String) -> String {
        let bytes = id.utf8
        if !bytes.isEmpty, bytes.count <= APNSHeader.maxCollapseIDBytes, bytes.allSatisfy({ (0x21...0x7e).contains($0) }) {
            return id
        }
        return SHA256Digest.hex(of: id)
    }
}

extension OutboxItem {
    /// The APNs request for this device row; with `derivingCollapseID`, a row without a collapse id gets
    /// the one derived from its id (see `DerivedCollapseID`). A collapse id of the push's own is kept.
    func sentNotification(derivingCollapseID: Bool) -> APNSNotification {
        var notification = self.notification
        if derivingCollapseID, notification.collapseID == nil { notification.collapseID = DerivedCollapseID.of(id) }
        return notification
    }
}
