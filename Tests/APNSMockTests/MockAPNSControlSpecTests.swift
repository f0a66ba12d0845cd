import APNSCore
import Foundation
import JSON
import Testing

/// The operations `docs/mock-control.yaml` documents, read from its `paths:` section.
func documentedControlOperations() throws -> [(method: String, path: String)] {
    let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/mock-control.yaml")
    let lines = try String(contentsOf: spec, encoding: .utf8).split(separator: "\n").map(String.init)
    var operations: [(method: String, path: String)] = []
    var path: String?
    for line in lines {
        if line == "components:" { break }
        if line.hasPrefix("  /"), line.hasSuffix(":") {
            path = String(line.dropFirst(2).dropLast())
        } else if let path, let method = ["get", "post", "delete", "patch", "put"].first(where: { line == "    \($0):" }) {
            operations.append((method.uppercased(), path))
        }
    }
    return operations
}

@Suite("Mock control API and docs/mock-control.yaml agree")
struct MockAPNSControlSpecTests {
    @Test("every documented operation is served, and other methods on documented paths get 405")
    func specMatchesRouter() async throws {
        let operations = try documentedControlOperations()
        #expect(operations.count == 13)
        try await withControl { _, control in
            for (method, path) in operations {
                let concrete = path.replacingOccurrences(of: "{id}", with: "1") + (path == "/records/wait" ? "?count=1&timeout_ms=0" : "")
                let body: String? = ["POST", "PATCH"].contains(method) ? (path == "/rules" ? #"{"answer":{"status":200}}"# : "{}") : nil
                let response = try await control.send(method, concrete, body: body)
                #expect(response.errorCode != "method_not_allowed", "\(method) \(path)")
                #expect(response.json?["error"]?["message"]?.stringValue?.hasPrefix("no route") != true, "\(method) \(path)")
            }
            for path in Set(operations.map(\.path)) {
                let documented = Set(operations.filter { $0.path == path }.map(\.method))
                for method in ["GET", "POST", "DELETE", "PATCH", "PUT"] where !documented.contains(method) {
                    let response = try await control.send(
                        method, path.replacingOccurrences(of: "{id}", with: "1"),
                        body: method == "GET" || method == "DELETE" ? nil : "{}")
                    #expect(response.status == 405, "\(method) \(path)")
                }
            }
        }
    }
}
