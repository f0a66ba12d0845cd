import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("OutboxID")
struct OutboxIDTests {
    @Test func idsStayUniqueAcrossRandomRefillsAndTasks() async {
        // Many more ids than one refill of random words, made from concurrent tasks.
        let batches = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (0..<500).map { _ in OutboxID.make() } } }
            var all: [[String]] = []
            for await batch in group { all.append(batch) }
            return all
        }
        let ids = batches.flatMap { $0 }
        #expect(ids.count == 4_000 && Set(ids).count == 4_000)
        for id in ids.prefix(100) {
            let chars = Array(id)
            #expect(UUID(uuidString: id) != nil && chars[14] == "7" && "89ab".contains(chars[19]))
        }
        // Ids made in a later millisecond sort after earlier ones, whatever their random bits.
        var generator = SystemRandomNumberGenerator()
        let now = Date()
        for _ in 0..<100 {
            let first = OutboxID.make(at: now, using: &generator)
            #expect(OutboxID.make(at: now.addingTimeInterval(0.001), using: &generator) > first)
        }
        #expect(OutboxID.make() > OutboxID.make(at: now.addingTimeInterval(-0.001), using: &generator))
    }
}
