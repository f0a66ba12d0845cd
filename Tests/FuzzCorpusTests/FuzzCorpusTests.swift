import Foundation
import FuzzSupport
import JSON
import PushSync
import Testing

@testable import fuzz_payload
@testable import fuzz_requests

/// Replays the checked-in fuzz corpora through the fuzz targets' checks, so every seed, and every input
/// saved there after a fuzzer crash, stays a regression test of the normal suite.
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    /// The files of `Fuzz/corpus/<target>` (name and bytes), found from this source file's location.
    static func corpus(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let directory = root.appendingPathComponent("Fuzz/corpus/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { ($0, [UInt8](try Data(contentsOf: directory.appendingPathComponent($0)))) }
    }

    /// Runs `check` over every input of `target`'s corpus; a broken invariant becomes a test issue naming
    /// the input, and the replay goes on (instead of the whole test process stopping).
    static func replay(_ target: String, _ check: ([UInt8]) -> Void) throws {
        let inputs = try corpus(target)
        #expect(inputs.count >= 5)
        for input in inputs {
            FuzzCheck.reporting(to: { message, file, line in
                Issue.record("\(target)/\(input.name): invariant broken: \(message) (\(file):\(line))")
            }) {
                check(input.bytes)
            }
        }
    }

    @Test("every fuzz-requests input keeps the request decoding invariants")
    func requestCorpus() throws {
        try Self.replay("fuzz-requests", RequestDecodingCheck.run)
    }

    @Test("every fuzz-payload input keeps the payload builder invariants")
    func payloadCorpus() throws {
        try Self.replay("fuzz-payload", PayloadBuilderCheck.run)
    }

    @Test("a broken invariant reaches the reporter with its message, and the check goes on")
    func brokenInvariantIsReported() {
        let seen = Reports()
        let value = FuzzCheck.reporting(to: { message, _, _ in seen.add(message) }) { () -> JSONValue in
            FuzzCheck.expect(1 + 1 == 3, "arithmetic")
            FuzzCheck.expect(true, "never reported")
            return FuzzCheck.expectCanonicalJSON(Array("{\"a\": 1}".utf8), "a spaced object")
        }
        #expect(seen.messages == ["arithmetic", "a spaced object is not in canonical form"])
        #expect(value == ["a": 1])
        #expect(
            FuzzCheck.reporting(to: { message, _, _ in seen.add(message) }) {
                FuzzCheck.expectCanonicalJSON(Array("{".utf8), "half an object")
            } == .null)
        #expect(seen.messages.count == 3 && seen.messages[2].hasPrefix("half an object is not valid JSON"))
    }
}

/// Messages handed to a reporter.
final class Reports: Sendable {
    private let storage = PThreadLock<[String]>([])
    var messages: [String] { storage.withLock { $0 } }
    func add(_ message: String) { storage.withLock { $0.append(message) } }
}
