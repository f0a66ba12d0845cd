import Foundation
import PushService
import Testing

@Suite("docs/openapi.yaml")
struct OpenAPIRouterTests {
    /// The operations of the OpenAPI document as "METHOD /path".
    static func specOperations() throws -> Set<String> {
        Set(try specScopes().keys)
    }

    /// Each operation of the OpenAPI document ("METHOD /path") with its `x-required-scope` ("" when absent).
    static func specScopes() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        var operations: [String: String] = [:]
        var inPaths = false
        var currentPath: String?
        var currentOperation: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path = currentPath {
                let key = line.dropFirst(4).prefix { $0 != ":" }
                currentOperation = methods.contains(String(key)) ? "\(key.uppercased()) \(path)" : nil
                if let currentOperation { operations[currentOperation] = "" }
            } else if line.hasPrefix("      x-required-scope: "), let operation = currentOperation {
                operations[operation] = String(line.dropFirst("      x-required-scope: ".count))
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

    @Test("each operation's x-required-scope is the scope the router enforces (metrics and healthz when protected)")
    func sameScopes() async throws {
        let harness = try await ServiceHarness.start {
            $0.protectMetrics = true
            $0.protectHealthz = true
        }
        let spec = try Self.specScopes()
        for route in harness.server.routes {
            #expect(spec[route.operation] == route.scope?.rawValue, "\(route.operation)")
        }
        await harness.stop()
    }
}
