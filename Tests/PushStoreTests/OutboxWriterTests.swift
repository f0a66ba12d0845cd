import Foundation
import Testing
@testable import PushStore

@Suite("OutboxWriter")
struct OutboxWriterTests {
    @Test(arguments: StoreKind.allCases)
    func concurrentEnqueuesShareCommitsAndBadOnesFailAlone(kind: StoreKind) async throws {
        let outbox = try kind.make().outbox
        let writer = OutboxWriter(outbox: outbox)
        try await outbox.enqueue([outboxItem("taken")])
        let failures = await withTaskGroup(of: Bool.self) { group in
            for n in 0..<200 {
                group.addTask {
                    do {
                        try await writer.enqueue([outboxItem("w\(n)", token: n)])
                        return false
                    } catch { return true }
                }
            }
            group.addTask {
                do {
                    try await writer.enqueue([outboxItem("taken")])
                    return false
                } catch { return true }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 1)
        #expect(try await outbox.depth() == 201)
        #expect(await writer.commits <= 201 + 200)
    }

    @Test func invalidRowsFailBeforeQueueing() async throws {
        let writer = OutboxWriter(outbox: InMemoryOutboxRepository())
        var bad = outboxItem("x")
        bad.environment = "staging"
        await #expect(throws: PushStoreError.self) { try await writer.enqueue([bad]) }
        #expect(await writer.commits == 0)
    }
}
