import APNSCore
import Foundation
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
        for row in rows {
            counts[row.state, default: 0] += 1
            if !row.state.isTerminal { complete = false }
        }
        var out: [UInt8] = []
        out.reserveCapacity(96 + rows.count * 330)
        out.append(contentsOf: #"{"complete":"#.utf8)
        out.append(contentsOf: complete ? "true".utf8 : "false".utf8)
        out.append(contentsOf: #","counts":{"#.utf8)
        let states = counts.keys.map(\.rawValue).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (position, state) in states.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(state, to: &out)
            out.append(UInt8(ascii: ":"))
            writeInt(counts[OutboxState(rawValue: state)!] ?? 0, to: &out)
        }
        out.append(contentsOf: #"},"notifications":["#.utf8)
        var lastTime: (millis: Int64, text: [UInt8])?
        for (position, row) in rows.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"apns_id":"#.utf8)
            writeOptional(row.apnsID, to: &out)
            out.append(contentsOf: #","apns_unique_id":"#.utf8)
            writeOptional(row.apnsUniqueID, to: &out)
            out.append(contentsOf: #","attempts":"#.utf8)
            writeInt(row.attempts, to: &out)
            out.append(contentsOf: #","environment":"#.utf8)
            JSONValue.writeString(row.environment, to: &out)
            out.append(contentsOf: #","id":"#.utf8)
            JSONValue.writeString(row.id, to: &out)
            out.append(contentsOf: #","reason":"#.utf8)
            writeOptional(row.lastReason, to: &out)
            out.append(contentsOf: #","state":"#.utf8)
            JSONValue.writeString(row.state.rawValue, to: &out)
            out.append(contentsOf: #","status":"#.utf8)
            if let status = row.lastStatus { writeInt(status, to: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: #","token":"#.utf8)
            JSONValue.writeString(row.token, to: &out)
            out.append(contentsOf: #","topic":"#.utf8)
            JSONValue.writeString(row.topic, to: &out)
            out.append(contentsOf: #","updated_at":""#.utf8)
            // Rows finished together share their time: format each distinct one once.
            let millis = TimeText.millis(row.updatedAt)
            if let lastTime, lastTime.millis == millis {
                out.append(contentsOf: lastTime.text)
            } else {
                let text = TimeText.iso8601(millis: millis)
                out.append(contentsOf: text)
                lastTime = (millis, text)
            }
            out.append(contentsOf: #""}"#.utf8)
        }
        out.append(contentsOf: #"],"push_id":"#.utf8)
        JSONValue.writeString(pushID, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"notifications":[{"id":…,"token":…},…],"push_id":…}`: the 202 answer of `POST /v1/pushes`.
    static func accepted(pushID: String, items: [OutboxItem]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + items.count * 120)
        out.append(contentsOf: #"{"notifications":["#.utf8)
        for (position, item) in items.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"id":"#.utf8)
            JSONValue.writeString(item.id, to: &out)
            out.append(contentsOf: #","token":"#.utf8)
            JSONValue.writeString(item.token, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"push_id":"#.utf8)
        JSONValue.writeString(pushID, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func writeOptional(_ text: String?, to out: inout [UInt8]) {
        if let text { JSONValue.writeString(text, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    static func writeInt(_ value: Int, to out: inout [UInt8]) {
        if value < 0 {
            out.append(contentsOf: String(value).utf8)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
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
