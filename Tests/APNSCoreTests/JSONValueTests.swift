import APNSCore
import JSON
import Testing

@Suite("JSONValue serialization and accessors")
struct JSONValueTests {
    @Test(
        "serialized text",
        arguments: [
            (JSONValue.null, "null"),
            (true, "true"),
            (false, "false"),
            (0, "0"),
            (.int(-9_223_372_036_854_775_808), "-9223372036854775808"),
            (0.5, "0.5"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e-7, "1e-07"),
            (1e21, "1e+21"),
            (.double(.infinity), "null"),
            (.double(.nan), "null"),
            ("", #""""#),
            ("a\"b\\c/d", #""a\"b\\c/d""#),
            ("\u{8}\u{C}\n\r\t", #""\b\f\n\r\t""#),
            ("\u{0}\u{1F}\u{7F}", #""\u0000\u001f"# + "\u{7F}\""),
            ("é😀\u{2028}", "\"é😀\u{2028}\""),
            ([], "[]"),
            ([:], "{}"),
            (["b": 1, "a": [nil, "x"], "B": true], #"{"B":true,"a":[null,"x"],"b":1}"#),
        ] as [(JSONValue, String)])
    func serialize(value: JSONValue, text: String) {
        #expect(String(decoding: value.serialized(), as: UTF8.self) == text)
        #expect(value.description == text)
    }

    @Test("keys sort by UTF-8 bytes, not by locale")
    func keyOrder() {
        let value: JSONValue = ["é": 1, "z": 2, "Z": 3, "aa": 4, "a": 5]
        #expect(value.description == #"{"Z":3,"a":5,"aa":4,"z":2,"é":1}"#)
    }

    @Test("accessors")
    func accessors() {
        let value: JSONValue = ["s": "x", "i": 42, "d": 2.5, "big": 1e30, "b": false, "a": [1, 2], "n": nil]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.intValue == 42)
        #expect(value["i"]?.doubleValue == 42)
        #expect(value["d"]?.doubleValue == 2.5)
        #expect(value["d"]?.intValue == nil)
        #expect(value["big"]?.int64Value == nil)
        #expect(JSONValue.double(3.0).intValue == 3)
        #expect(value["b"]?.boolValue == false)
        #expect(value["a"]?.arrayValue?.count == 2)
        #expect(value["a"]?[1] == 2)
        #expect(value["a"]?[2] == nil)
        #expect(value["n"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value.objectValue?.count == 7)
        #expect(value["s"]?["x"] == nil)
        #expect(value["s"]?.intValue == nil)
    }
}
