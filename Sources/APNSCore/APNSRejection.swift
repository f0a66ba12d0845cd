import JSON

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// APNs refused a notification: the HTTP status, the reason and, for 410, when the token went bad.
public struct APNSRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP `:status` of the response.
    public let status: Int
    /// The `reason` from the response body.
    public let reason: APNSRejectionReason
    /// For 410: when APNs learned the token was no longer valid (millisecond precision).
    public let timestamp: Date?
    /// The `apns-id` response header, when present.
    public let apnsID: String?

    /// Creates a rejection from its parts.
    public init(status: Int, reason: APNSRejectionReason, timestamp: Date? = nil, apnsID: String? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
    }

    /// Creates a rejection with the status Apple uses for `reason` (400 for an unknown reason).
    public init(_ reason: APNSRejectionReason, timestamp: Date? = nil, apnsID: String? = nil) {
        self.init(status: reason.status ?? 400, reason: reason, timestamp: timestamp, apnsID: apnsID)
    }

    /// `status reason`, plus the timestamp in milliseconds when present.
    public var description: String {
        var text = "\(status) \(reason.rawValue)"
        if let millis = timestamp.map(APNSRejection.milliseconds) { text += " (timestamp \(millis))" }
        return text
    }

    /// Milliseconds since 1970 for `date`, rounded to the nearest millisecond.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) ?? 0
    }
}

extension APNSRejection {
    /// Reads an APNs error response. Never fails: a missing, empty or garbled body gives
    /// `reason == .unknown("")`; a timestamp that is not a number is ignored.
    public static func parse(status: Int, body: [UInt8], apnsID: String?) -> APNSRejection {
        guard let json = try? JSONValue.parse(body) else {
            return APNSRejection(status: status, reason: .unknown(""), apnsID: apnsID)
        }
        let reason = APNSRejectionReason(rawValue: json["reason"]?.stringValue ?? "")
        let timestamp = json["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        return APNSRejection(status: status, reason: reason, timestamp: timestamp, apnsID: apnsID)
    }

    /// The body APNs would send: `{"reason":"…"}`, plus `"timestamp":<ms>` on a 410 with a timestamp.
    public func jsonBody() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        out.append(contentsOf: #"{"reason":"#.utf8)
        JSONValue.writeString(reason.rawValue, to: &out)
        if status == 410, let timestamp {
            out.append(contentsOf: #","timestamp":"#.utf8)
            out.append(contentsOf: String(APNSRejection.milliseconds(timestamp)).utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
