import APNSCore
import Testing

@Suite("apns-id as a value")
struct APNSIDTests {
    @Test("an id is the 8-4-4-4-12 hex form Apple documents, in either case, kept as given")
    func acceptsTheCanonicalForm() throws {
        let lower = try #require(APNSID(rawValue: "123e4567-e89b-12d3-a456-4266554400a0"))
        #expect(lower.rawValue == "123e4567-e89b-12d3-a456-4266554400a0" && lower.description == lower.rawValue)
        let upper = try #require(APNSID(rawValue: "2F8D3B55-61A4-4A0B-9D2C-6C9B2A8F0E11"))
        #expect(upper.rawValue == "2F8D3B55-61A4-4A0B-9D2C-6C9B2A8F0E11")
    }

    @Test(
        "anything else is no id",
        arguments: [
            "", "123e4567e89b12d3a4564266554400a0", "123e4567-e89b-12d3-a456-4266554400a", "123e4567-e89b-12d3-a456-4266554400a00",
            "123e4567-e89b-12d3-a456_4266554400a0", "123e4567-e89b-12d3-a456-4266554400g0", "{123e4567-e89b-12d3-a456-4266554400a}",
        ])
    func refusesOtherText(_ text: String) {
        #expect(APNSID(rawValue: text) == nil)
    }

    @Test("random ids are valid lowercase version 4 UUIDs, and differ")
    func randomIDs() {
        let ids = (0..<64).map { _ in APNSID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(APNSID(rawValue: id.rawValue) == id && id.rawValue == id.rawValue.lowercased())
            #expect(Array(id.rawValue.utf8)[14] == UInt8(ascii: "4"))
        }
        var generator = SystemRandomNumberGenerator()
        #expect(APNSID.isValid(APNSID.random(using: &generator).rawValue))
    }
}
