import APNSCore
import Testing

@Suite("apns-id written as bytes")
struct APNSIDBytesTests {
    @Test("write(high:low:into:) writes the same 36 characters format(high:low:) returns")
    func bytesMatchTheString() {
        let samples: [(UInt64, UInt64)] = [
            (0, 0), (.max, .max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210), (0x8000_0000_0000_0001, 0x0000_0000_0000_0080),
        ]
        for (high, low) in samples {
            var bytes = [UInt8](repeating: 0, count: 36)
            bytes.withUnsafeMutableBytes { APNSID.write(high: high, low: low, into: $0) }
            #expect(String(decoding: bytes, as: UTF8.self) == APNSID.format(high: high, low: low))
        }
        #expect(APNSID.format(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210) == "01234567-89ab-cdef-fedc-ba9876543210")
    }

    @Test("generate(using:into:) writes a valid version 4 id, also checked as bytes")
    func generatedBytesAreValid() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            var bytes = [UInt8](repeating: 0, count: 36)
            bytes.withUnsafeMutableBytes { APNSID.generate(using: &generator, into: $0) }
            #expect(bytes.withUnsafeBytes { APNSID.isValid(bytes: $0) })
            #expect(bytes[14] == UInt8(ascii: "4"))
        }
    }
}
