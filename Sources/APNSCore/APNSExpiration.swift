#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The `apns-expiration` header: until when APNs keeps retrying an undeliverable notification.
public struct APNSExpiration: Hashable, Sendable, CustomStringConvertible {
    /// Seconds since 1970 sent in the header, or `nil` to omit the header (APNs's default storage policy).
    public let epochSeconds: Int64?
    /// The header value, or `nil` when the header is omitted; precomputed for the request hot path.
    public let headerValue: String?

    private init(epochSeconds: Int64?) {
        self.epochSeconds = epochSeconds
        self.headerValue = epochSeconds.map { String($0) }
    }

    /// 0: deliver once now or drop; APNs does not store it.
    public static let immediately = APNSExpiration(epochSeconds: 0)
    /// No header: APNs stores and retries as it sees fit.
    public static let none = APNSExpiration(epochSeconds: nil)

    /// Retry until `date` (whole seconds, rounded down).
    public static func at(_ date: Date) -> APNSExpiration {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return APNSExpiration(epochSeconds: Int64(exactly: seconds) ?? (seconds < 0 ? -1 : Int64.max))
    }

    /// Retry until `epochSeconds` seconds after 1970; 0 means `immediately`.
    public static func at(epochSeconds: Int64) -> APNSExpiration {
        APNSExpiration(epochSeconds: epochSeconds)
    }

    /// `none`, or the epoch seconds.
    public var description: String {
        headerValue ?? "none"
    }
}
