import APNSCore
import Foundation
import JSON
import PushStore

/// The two push answers that list every notification of a push, written straight to bytes.
///
/// They can hold 10,000 rows, and `GET /v1/pushes/{id}` is polled, so they skip the `JSONValue` tree
/// (a dictionary per row, keys sorted per object). The bytes are the same as serializing the tree:
/// keys in sorted order, no whitespace.
enum PushJSON {
    /// `{"complete":…,"counts":{…},"notifications":[…],"push_id":…}` for `GET /v1/pushes/{id}` and
    /// `?wait=true`; each row as `RecordJSON.notification`.
    static func push(pushID: String, rows: [OutboxItem]) -> [UInt8] {
        var counts: [OutboxState: Int] = [:]
        var complete = true
        for index in rows.indices {
            let state = rows[index].state
            counts[state, default: 0] += 1
            if !state.isTerminal { complete = false }
        }
        var out: [UInt8] = []
        out.reserveCapacity(96 + rows.count * 400)
        out.append(contentsOf: Bytes.openComplete)
        out.append(contentsOf: complete ? Bytes.trueText : Bytes.falseText)
        out.append(contentsOf: Bytes.counts)
        let states = counts.keys.map(\.rawValue).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (position, state) in states.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(state, to: &out)
            out.append(UInt8(ascii: ":"))
            writeInt(counts[OutboxState(rawValue: state)!] ?? 0, to: &out)
        }
        out.append(contentsOf: Bytes.notifications)
        var lastTime: (millis: Int64, text: [UInt8])?
        rows.withUnsafeBufferPointer { rows in
            for position in rows.indices {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: Bytes.openApnsID)
                writeOptional(rows[position].apnsID?.rawValue, to: &out)
                out.append(contentsOf: Bytes.apnsUniqueID)
                writeOptional(rows[position].apnsUniqueID, to: &out)
                out.append(contentsOf: Bytes.attempts)
                writeInt(rows[position].attempts, to: &out)
                if case .channel(let channelID) = rows[position].target {
                    out.append(contentsOf: Bytes.channelID)
                    JSONValue.writeString(channelID.rawValue, to: &out)
                }
                out.append(contentsOf: Bytes.environment)
                JSONValue.writeString(rows[position].environment.name, to: &out)
                out.append(contentsOf: Bytes.id)
                JSONValue.writeString(rows[position].id, to: &out)
                out.append(contentsOf: Bytes.reason)
                writeOptional(rows[position].lastReason?.rawValue, to: &out)
                out.append(contentsOf: Bytes.state)
                JSONValue.writeString(rows[position].state.rawValue, to: &out)
                out.append(contentsOf: Bytes.status)
                if let status = rows[position].lastStatus { writeInt(status, to: &out) } else { out.append(contentsOf: Bytes.null) }
                if case .device(let token) = rows[position].target {
                    out.append(contentsOf: Bytes.token)
                    JSONValue.writeString(token.hex, to: &out)
                }
                out.append(contentsOf: Bytes.topic)
                JSONValue.writeString(rows[position].topic, to: &out)
                out.append(contentsOf: Bytes.updatedAt)
                // Rows finished together share their time: format each distinct one once.
                let millis = TimeText.millis(rows[position].updatedAt)
                if let lastTime, lastTime.millis == millis {
                    out.append(contentsOf: lastTime.text)
                } else {
                    let text = TimeText.iso8601(millis: millis)
                    out.append(contentsOf: text)
                    lastTime = (millis, text)
                }
                out.append(contentsOf: Bytes.closeRow)
            }
        }
        out.append(contentsOf: Bytes.pushID)
        JSONValue.writeString(pushID, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"notifications":[{"id":…,"token":…},…],"push_id":…}`: the 202 answer of `POST /v1/pushes`.
    static func accepted(pushID: String, items: [OutboxItem]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + items.count * 128)
        out.append(contentsOf: Bytes.openNotifications)
        // Rows are read in place (no copy of each row), straight into the bytes.
        items.withUnsafeBufferPointer { items in
            for position in items.indices {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                switch items[position].target {
                case .channel(let channelID):
                    out.append(contentsOf: Bytes.openChannelID)
                    JSONValue.writeString(channelID.rawValue, to: &out)
                    out.append(contentsOf: Bytes.id)
                    JSONValue.writeString(items[position].id, to: &out)
                case .device(let token):
                    out.append(contentsOf: Bytes.openID)
                    JSONValue.writeString(items[position].id, to: &out)
                    out.append(contentsOf: Bytes.token)
                    JSONValue.writeString(token.hex, to: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
        }
        out.append(contentsOf: Bytes.pushID)
        JSONValue.writeString(pushID, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The fixed parts of the answers as bytes (appending a byte array is a copy; a string's UTF-8 view is not).
    private enum Bytes {
        static let openComplete: [UInt8] = Array(#"{"complete":"#.utf8)
        static let counts: [UInt8] = Array(#","counts":{"#.utf8)
        static let notifications: [UInt8] = Array(#"},"notifications":["#.utf8)
        static let openApnsID: [UInt8] = Array(#"{"apns_id":"#.utf8)
        static let apnsUniqueID: [UInt8] = Array(#","apns_unique_id":"#.utf8)
        static let attempts: [UInt8] = Array(#","attempts":"#.utf8)
        static let environment: [UInt8] = Array(#","environment":"#.utf8)
        static let channelID: [UInt8] = Array(#","channel_id":"#.utf8)
        static let openChannelID: [UInt8] = Array(#"{"channel_id":"#.utf8)
        static let id: [UInt8] = Array(#","id":"#.utf8)
        static let reason: [UInt8] = Array(#","reason":"#.utf8)
        static let state: [UInt8] = Array(#","state":"#.utf8)
        static let status: [UInt8] = Array(#","status":"#.utf8)
        static let token: [UInt8] = Array(#","token":"#.utf8)
        static let topic: [UInt8] = Array(#","topic":"#.utf8)
        static let updatedAt: [UInt8] = Array(#","updated_at":""#.utf8)
        static let closeRow: [UInt8] = Array(#""}"#.utf8)
        static let pushID: [UInt8] = Array(#"],"push_id":"#.utf8)
        static let openNotifications: [UInt8] = Array(#"{"notifications":["#.utf8)
        static let openID: [UInt8] = Array(#"{"id":"#.utf8)
        static let null: [UInt8] = Array("null".utf8)
        static let trueText: [UInt8] = Array("true".utf8)
        static let falseText: [UInt8] = Array("false".utf8)
    }

    private static func writeOptional(_ text: String?, to out: inout [UInt8]) {
        if let text { JSONValue.writeString(text, to: &out) } else { out.append(contentsOf: Bytes.null) }
    }

    static func writeInt(_ value: Int, to out: inout [UInt8]) {
        if value < 0 {
            out.append(contentsOf: String(value).utf8)
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = UInt(value)
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }
}

/// Timestamps as the API writes them: ISO 8601 in UTC with milliseconds (`2026-05-28T20:26:40.123Z`).
enum TimeText {
    /// Whole milliseconds since 1970, rounded (the store keeps times in milliseconds).
    static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000).rounded())
    }

    /// The text of `date` at millisecond precision.
    static func iso8601(_ date: Date) -> String {
        String(decoding: iso8601(millis: millis(date)), as: UTF8.self)
    }

    /// The text for `millis` milliseconds since 1970 (proleptic Gregorian calendar, UTC).
    static func iso8601(millis: Int64) -> [UInt8] {
        let dayMillis: Int64 = 86_400_000
        let days = millis >= 0 ? millis / dayMillis : (millis - dayMillis + 1) / dayMillis
        let ofDay = millis - days * dayMillis
        // Civil date from a day count, with eras of 400 years starting on 0000-03-01.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        if year >= 0 && year <= 9_999 { digits(year, 4) } else { out.append(contentsOf: String(year).utf8) }
        out.append(UInt8(ascii: "-"))
        digits(month, 2)
        out.append(UInt8(ascii: "-"))
        digits(day, 2)
        out.append(UInt8(ascii: "T"))
        digits(ofDay / 3_600_000, 2)
        out.append(UInt8(ascii: ":"))
        digits(ofDay / 60_000 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(ofDay / 1_000 % 60, 2)
        out.append(UInt8(ascii: "."))
        digits(ofDay % 1_000, 3)
        out.append(UInt8(ascii: "Z"))
        return out
    }
}
