import Foundation
import Testing
@testable import fuzz_payload
@testable import fuzz_requests

/// Replays the checked-in fuzz corpora through the fuzz targets' checks, so every seed, and every input
/// saved there after a fuzzer crash, stays a regression test of the normal suite.
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    /// The files of `Fuzz/corpus/<target>`, found from this source file's location.
    static func corpus(_ target: String) throws -> [[UInt8]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let directory = root.appendingPathComponent("Fuzz/corpus/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    @Test("every fuzz-requests input keeps the request decoding invariants")
    func requestCorpus() throws {
        let inputs = try Self.corpus("fuzz-requests")
        #expect(inputs.count >= 5)
        for input in inputs { RequestDecodingCheck.run(input) }
    }

    @Test("every fuzz-payload input keeps the payload builder invariants")
    func payloadCorpus() throws {
        let inputs = try Self.corpus("fuzz-payload")
        #expect(inputs.count >= 5)
        for input in inputs { PayloadBuilderCheck.run(input) }
    }
}
