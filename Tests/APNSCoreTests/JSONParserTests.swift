import APNSCore
import JSON
import TestSupport
import Testing

@Suite("JSONValue.parse")
struct JSONParserTests {
    @Test(
        "accepts",
        arguments: [
            ("null", JSONValue.null),
            (" \t\r\n true \n", true),
            ("false", false),
            ("0", 0),
            ("-0", 0),
            ("123", 123),
            ("-9223372036854775808", .int(.min)),
            ("9223372036854775807", .int(.max)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808)),
            ("1.5", 1.5),
            ("-0.25e2", -25.0),
            ("1E3", 1000.0),
            ("1e+2", 100.0),
            ("2.5E-1", 0.25),
            (#""""#, ""),
            (#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{8}\u{C}\n\r\t"),
            (#""\u0041\u00e9\u20AC""#, "Aé€"),
            (#""\ud83d\ude00""#, "😀"),
            ("\"é😀\"", "é😀"),
            (#""\u0000""#, "\u{0}"),
            ("[]", []),
            ("[ 1 , [ ] , { } ]", [1, [], [:]]),
            (#"{"a":{"b":[null]}}"#, ["a": ["b": [nil]]]),
            (#"{ "x" : 1 , "y" : "2" }"#, ["x": 1, "y": "2"]),
            (String(repeating: "[", count: 64) + String(repeating: "]", count: 64), nil),
        ] as [(String, JSONValue?)])
    func accepts(text: String, expected: JSONValue?) throws {
        let value = try JSONValue.parse(Array(text.utf8))
        if let expected { #expect(value == expected) }
        // Round trip: serializing and parsing again gives the same value.
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test(
        "rejects",
        arguments: [
            ([], "unexpected end", 0),
            (Array(" ".utf8), "unexpected end", 1),
            (Array("nul".utf8), "invalid literal", 0),
            (Array("truex".utf8), "after the JSON value", 4),
            (Array("{} {}".utf8), "after the JSON value", 3),
            (Array("01".utf8), "leading zero", 1),
            (Array("-01".utf8), "leading zero", 2),
            (Array("-".utf8), "expected a digit", 1),
            (Array("1.".utf8), "after '.'", 2),
            (Array(".5".utf8), "unexpected byte", 0),
            (Array("1e".utf8), "exponent", 2),
            (Array("+1".utf8), "unexpected byte", 0),
            (Array("1e400".utf8), "out of range", 0),
            (Array("NaN".utf8), "unexpected byte", 0),
            (Array("[1,]".utf8), "unexpected byte", 3),
            (Array("[1 2]".utf8), "',' or ']'", 3),
            (Array(#"{"a":1,}"#.utf8), "string key", 7),
            (Array(#"{"a" 1}"#.utf8), "':'", 5),
            (Array(#"{a:1}"#.utf8), "string key", 1),
            (Array(#"{"a":1 "b":2}"#.utf8), "',' or '}'", 7),
            (Array(#"{"a":1,"a":2}"#.utf8), "duplicate", 7),
            (Array(#"["abc"#.utf8), "unterminated string", 1),
            (Array("\"a\nb\"".utf8), "control character", 2),
            (Array(#""\x""#.utf8), "invalid escape", 1),
            (Array(#""\u12G4""#.utf8), "hex digit", 5),
            (Array(#""\u12""#.utf8), "truncated", 3),
            (Array(#""\ud800""#.utf8), "lone high surrogate", 1),
            (Array(#""\ud800\u0041""#.utf8), "lone high surrogate", 1),
            (Array(#""\udc00""#.utf8), "lone low surrogate", 1),
            ([0x22, 0xFF, 0x22], "lead byte", 1),
            ([0x22, 0x80, 0x22], "lead byte", 1),
            ([0x22, 0xC0, 0x80, 0x22], "lead byte", 1),
            ([0x22, 0xE0, 0x80, 0x80, 0x22], "invalid UTF-8 sequence", 2),
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 sequence", 2),
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 sequence", 2),
            ([0x22, 0xE2, 0x82, 0x22], "invalid UTF-8 sequence", 3),
            ([0x22, 0xE2, 0x82], "truncated", 1),
            ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], "unexpected byte", 0),
            (Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8), "nesting", 64),
            (Array(String(repeating: "{\"a\":", count: 100).utf8), "nesting", 320),
        ] as [([UInt8], String, Int)])
    func rejects(bytes: [UInt8], fragment: String, offset: Int) {
        #expect {
            try JSONValue.parse(bytes)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.message.contains(fragment) && error.offset == offset
        }
    }

    @Test("parses from any byte collection, including slices and UTF-8 views")
    func collections() throws {
        let text = #"xx{"k":[1,2]}yy"#
        let bytes = Array(text.utf8)
        #expect(try JSONValue.parse(bytes[2..<13]) == ["k": [1, 2]])
        #expect(try JSONValue.parse(#"{"k":true}"#.utf8) == ["k": true])
        #expect(try JSONValue.parse(AnyCollection(Array("[3]".utf8))) == [3])
    }

    @Test("hostile input: deep nesting and long inputs fail or succeed without crashing")
    func hostile() throws {
        let deep = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        let big = "[" + Array(repeating: #"{"k":"vvvvvvvvvv","n":-1.5e3}"#, count: 20_000).joined(separator: ",") + "]"
        let value = try JSONValue.parse(big.utf8)
        #expect(value.arrayValue?.count == 20_000)
        #expect(value[19_999]?["n"] == -1500.0)
    }

    @Test("mutated documents never crash; whatever parses round-trips")
    func mutationFuzz() throws {
        var random = SeededGenerator(seed: 0x5EED)
        let seed = Array(#"{"a":[1,-2.5e3,"x\u00e9\n",true,null,{"b":{}}],"c":"Zoë😀"}"#.utf8)
        let alphabet = Array(#"{}[]",:\-+.eE0129tfnu "#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        var accepted = 0
        for _ in 0..<5_000 {
            var bytes = seed
            for _ in 0...Int(random.next() % 4) {
                let position = Int(random.next() % UInt64(bytes.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            guard let value = try? JSONValue.parse(bytes) else { continue }
            accepted += 1
            #expect(try JSONValue.parse(value.serialized()) == value)
        }
        #expect(accepted > 0)
    }

    @Test("error description names the offset")
    func description() {
        #expect(JSONParseError("boom", offset: 7).description == "invalid JSON at byte 7: boom")
    }
}
