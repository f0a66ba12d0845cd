public import Foundation
import PushTLS

/// The signature of one webhook request: `Webhook-Timestamp: <unix seconds>` and
/// `Webhook-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`.
///
/// A receiver recomputes the HMAC over the timestamp header, a dot and the raw body bytes with its secret,
/// compares it with the header in constant time, and refuses a timestamp more than five minutes from its
/// clock (a replay of an old request), then drops events whose `id` it has already processed.
public enum WebhookSignature {
    /// The header carrying the send time in seconds since 1970.
    public static let timestampHeader = "Webhook-Timestamp"
    /// The header carrying the signature.
    public static let signatureHeader = "Webhook-Signature"
    /// The version prefix of the signature value.
    public static let version = "v1"

    /// The `Webhook-Signature` value for `body` sent at `timestamp` (seconds since 1970) under `secret`.
    public static func sign(body: [UInt8], timestamp: Int64, secret: String) -> String {
        let message = Array("\(timestamp).".utf8) + body
        return version + "=" + HMACSHA256.hex(key: Array(secret.utf8), message: message)
    }

    /// Whether `signature` is `body`'s at `timestamp` under `secret` and `timestamp` is within `tolerance`
    /// seconds of `now` (what a receiver written in Swift would check).
    public static func verify(
        body: [UInt8], timestamp: Int64, signature: String, secret: String, now: Date = Date(), tolerance: Duration = .seconds(300)
    ) -> Bool {
        guard abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance / .seconds(1) else { return false }
        let expected = Array(sign(body: body, timestamp: timestamp, secret: secret).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }
}
