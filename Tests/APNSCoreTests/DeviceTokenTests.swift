import APNSCore
import Foundation
import Testing

@Suite("DeviceToken")
struct DeviceTokenTests {
    static let hex64 = String(repeating: "ab12", count: 16)

    @Test(
        "pasted forms normalize to lowercase hex",
        arguments: [
            "<AB12AB12 AB12AB12 AB12AB12 AB12AB12 AB12AB12 AB12AB12 AB12AB12 AB12AB12>",
            "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12",
            "  AB12ab12\tAB12ab12\nAB12ab12\r\nAB12ab12 AB12ab12AB12ab12AB12ab12AB12ab12\n",
        ])
    func normalizes(text: String) throws {
        let token = try DeviceToken(text)
        #expect(token.hex == Self.hex64)
        #expect(token.description == Self.hex64)
    }

    @Test(
        "malformed tokens are rejected",
        arguments: [
            ("", "fewer than 64"),
            (String(repeating: "a", count: 62), "fewer than 64"),
            (String(repeating: "a", count: 65), "odd number"),
            (String(repeating: "a", count: 202), "more than 200"),
            (String(repeating: "a", count: 63) + "g", "not a hex digit"),
            (String(repeating: "ab", count: 16) + "-" + String(repeating: "ab", count: 16), "not a hex digit"),
        ])
    func rejects(text: String, fragment: String) {
        #expect {
            try DeviceToken(text)
        } throws: { error in
            let error = error as? APNSValidationError
            return error?.field == "token" && error?.message.contains(fragment) == true
        }
    }

    @Test("the longest accepted token has 200 digits")
    func longest() throws {
        let token = try DeviceToken(String(repeating: "F", count: 200))
        #expect(token.hex == String(repeating: "f", count: 200))
    }

    @Test("bytes round-trip through hex")
    func bytes() throws {
        let raw: [UInt8] = (0..<32).map { UInt8($0 * 8) }
        let token = DeviceToken(bytes: raw)
        #expect(token.hex.hasPrefix("0008101820"))
        #expect(token.bytes == raw)
        #expect(try DeviceToken(token.hex) == token)
    }

    @Test("Codable uses a single validated string")
    func codable() throws {
        let token = try DeviceToken(Self.hex64)
        let encoded = try JSONEncoder().encode([token])
        #expect(String(decoding: encoded, as: UTF8.self) == "[\"\(Self.hex64)\"]")
        let decoded = try JSONDecoder().decode([DeviceToken].self, from: Data("[\"<\(Self.hex64.uppercased())>\"]".utf8))
        #expect(decoded == [token])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DeviceToken].self, from: Data("[\"abc\"]".utf8)) }
    }
}
