import Foundation
import PushService
import Testing

@Suite("docs/openapi.yaml")
struct OpenAPIRouterTests {
    /// The operations of the OpenAPI document as "METHOD /path".
    static func specOperations() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        var operations = Set<String>()
        var inPaths = false
        var currentPath: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path = currentPath {
                let key = line.dropFirst(4).prefix { $0 != ":" }
                if methods.contains(String(key)) { operations.insert("\(key.uppercased()) \(path)") }
            }
        }
        return operations
    }

    @Test("the router and the OpenAPI document list the same operations")
    func sameOperations() async throws {
        let harness = try await ServiceHarness.start()
        let spec = try Self.specOperations()
        #expect(spec.count >= 15)
        #expect(harness.server.operations.subtracting(spec).isEmpty, "routes missing from the spec")
        #expect(spec.subtracting(harness.server.operations).isEmpty, "spec operations without a route")
        await harness.stop()
    }
}
