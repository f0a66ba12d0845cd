import APNSCore
import Foundation
import PushStore

/// A run of enqueued items that a store writes as one push: the payload, headers and target list once, the
/// notifications as positions in it.
///
/// Items form one run while they share every field but the target (push id, topic, push type, priority,
/// expiration, collapse id, payload, environment, enqueue and due times, and the kind of target: device or
/// channel), their ids are consecutive positions of one base (`OutboxID.position(of:)`), and their
/// `apns-id`s are all absent or all their own ids. Anything else starts a new run. A run is stored under its
/// `base` and `firstIndex`: notification `firstIndex + k` of the base is the run's item k, and an id is
/// found again from itself alone. An id that is not a lowercase UUID is its own base at position 0 (a run of
/// one), so any caller's items are stored exactly as given; callers that make a push's ids with
/// `OutboxID.makeDerived` get one run per push (per topic and environment, when its devices span apps).
struct OutboxPushRun: Equatable {
    /// The positions of the run's items in the enqueued array.
    var range: Range<Int>
    /// The base its items' ids derive from.
    var base: String
    /// The position of its first item under `base`.
    var firstIndex: Int
    /// The `apns_id` column: nil when the notifications send none, `""` when each sends its own id, else
    /// the one item's explicit `apns-id`.
    var apnsIDColumn: String?

    /// The base and position of `id` as stored: a lowercase UUID's own (`OutboxID.position(of:)`), any other
    /// id is its own base at position 0.
    static func key(of id: String) -> (base: String, index: Int) {
        guard id.utf8.allSatisfy({ !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }),
            let position = OutboxID.position(of: id)
        else { return (id, 0) }
        return position
    }

    /// The runs of `items`, in order, covering every item.
    static func runs(_ items: [OutboxItem]) -> [OutboxPushRun] {
        var runs: [OutboxPushRun] = []
        var start = 0
        while start < items.count {
            let (base, index) = key(of: items[start].id)
            let end =
                base == items[start].id && index == 0 && OutboxID.bits(of: base) == nil
                ? start + 1 : runEnd(items, from: start, index: index)
            let first = items[start]
            let column: String?
            if end - start > 1 {
                column = first.apnsID == nil ? nil : ""
            } else {
                column = first.apnsID.map { $0.rawValue == first.id ? "" : $0.rawValue }
            }
            runs.append(OutboxPushRun(range: start..<end, base: base, firstIndex: index, apnsIDColumn: column))
            start = end
        }
        return runs
    }

    /// The end of the run starting at `start`, whose id is at position `index` of its base.
    private static func runEnd(_ items: [OutboxItem], from start: Int, index: Int) -> Int {
        guard let (high, low) = OutboxID.bits(of: items[start].id) else { return start + 1 }
        let ownAPNSIDs = items[start].apnsID.map { $0.rawValue == items[start].id }
        guard ownAPNSIDs != false else { return start + 1 }
        let baseLow = low & ~0xffff_ffff
        var end = start + 1
        while end < items.count, index + (end - start) < OutboxID.derivedCapacity {
            // By index, reading fields in place: iterating would copy each item.
            guard sharesPush(items[end], items[start]),
                let (h, l) = OutboxID.bits(of: items[end].id), h == high, l == baseLow | UInt64(index + end - start),
                items[end].apnsID.map({ $0.rawValue == items[end].id }) == ownAPNSIDs,
                !items[end].id.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) })
            else { break }
            end += 1
        }
        return end
    }

    /// Whether `item` shares every stored field but its target (and its ids) with `first`.
    private static func sharesPush(_ item: OutboxItem, _ first: OutboxItem) -> Bool {
        item.pushID == first.pushID && item.topic == first.topic && item.pushType == first.pushType
            && item.priority == first.priority && item.expiration == first.expiration
            && item.collapseID == first.collapseID && item.environment == first.environment
            && item.createdAt == first.createdAt && item.nextAttemptAt == first.nextAttemptAt
            && item.target.isChannel == first.target.isChannel && samePayload(item.payload, first.payload)
    }

    /// Equal payloads, without comparing bytes when both share one buffer (as a fan-out's items do).
    private static func samePayload(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let shared = a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress && a.count == $0.count } }
        return shared || a == b
    }
}

/// A push's target list in one column (`targets`): each notification's `token` column value (device rows)
/// or channel id (channel rows), in position order, separated by commas (neither hex nor base64 has one).
enum OutboxTargetList {
    /// The column text of `items[range]`'s targets.
    static func column(_ items: [OutboxItem], _ range: Range<Int>) -> String {
        var text = ""
        text.reserveCapacity(range.count * 65)
        for index in range {
            if index > range.lowerBound { text.append(",") }
            switch items[index].target {
            case .device(let token): text.append(token.hex)
            case .channel(let channel): text.append(channel.rawValue)
            }
        }
        return text
    }

    /// The targets at `positions` of a push's `targets` column, in position order; channel targets when
    /// `channels`. Only those are decoded (a claim of a few hundred notifications of a large push does not
    /// decode the whole list).
    static func targets(_ column: String, channels: Bool, at positions: Range<Int>) -> [OutboxTarget] {
        var targets: [OutboxTarget] = []
        targets.reserveCapacity(positions.count)
        var column = column
        column.withUTF8 { bytes in
            var part = 0
            var start = 0
            var index = 0
            while part < positions.upperBound {
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                if part >= positions.lowerBound {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    targets.append(channels ? .channel(APNSChannelID(rawValue: text)) : .device(DeviceToken(storedHex: text)))
                }
                part += 1
                index += 1
                start = index
                if start > bytes.count { break }
            }
        }
        return targets
    }

    /// The `apns-id` of notification `id` in a push whose `apns_id` column is `column` (`OutboxPushRun`).
    static func apnsID(column: String?, id: String) -> APNSID? {
        guard let column else { return nil }
        return APNSID(rawValue: column.isEmpty ? id : column)
    }
}
