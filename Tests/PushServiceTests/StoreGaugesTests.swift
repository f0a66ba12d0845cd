import Foundation
import PushStore
import TestSupport
import Testing

@testable import PushService

/// `/metrics` reads the store at most once per `maxAge`, however often it is scraped.
@Suite("Store gauges behind /metrics")
struct StoreGaugesTests {
    /// Counts the reads and answers each with its number as the queued count.
    actor Reads {
        var count = 0
        func next() -> StoreSnapshot {
            count += 1
            return StoreSnapshot(pendingCounts: [.queued: count], oldestPending: nil, pendingWebhookCounts: [:])
        }
    }

    @Test("scrapes within maxAge reuse the last read")
    func scrapesWithinMaxAgeShareOneRead() async throws {
        let gauges = StoreGauges<StoreSnapshot>(maxAge: .seconds(3_600))
        let reads = Reads()
        for _ in 0..<5 {
            #expect(try await gauges.snapshot { await reads.next() }.pendingCounts[.queued] == 1)
        }
        #expect(await reads.count == 1)
    }

    @Test("with a zero maxAge every scrape reads the store")
    func zeroMaxAgeReadsEachTime() async throws {
        let gauges = StoreGauges<StoreSnapshot>(maxAge: .zero)
        let reads = Reads()
        for expected in 1...3 {
            #expect(try await gauges.snapshot { await reads.next() }.pendingCounts[.queued] == expected)
        }
    }

    @Test("scrapes that come while a read is under way get that read")
    func concurrentScrapesShareTheRead() async throws {
        // A zero maxAge keeps nothing: a scrape that did not wait on the read under way would read again and
        // get 2, 3, …, so only the shared read answers 1.
        let (shared, sharedInput) = AsyncStream.makeStream(of: Void.self)
        let gauges = StoreGauges<StoreSnapshot>(maxAge: .zero, onShare: { sharedInput.yield() })
        let reads = Reads()
        let (started, startedInput) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseInput) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await gauges.snapshot {
                startedInput.yield()
                for await _ in release { break }
                return await reads.next()
            }
        }
        for await _ in started { break }
        let others = (0..<4).map { _ in Task { try await gauges.snapshot { await reads.next() } } }
        // The four are waiting on the read before it is let go.
        #expect(
            await waitFor("4 scrapes joining the read under way", within: .seconds(30)) {
                var joined = 0
                for await _ in shared {
                    joined += 1
                    if joined == 4 { break }
                }
                return joined == 4
            })
        releaseInput.yield()
        #expect(try await first.value.pendingCounts[.queued] == 1)
        var answers: [Int?] = []
        for other in others { answers.append(try await other.value.pendingCounts[.queued]) }
        #expect(answers == [1, 1, 1, 1])
        #expect(await reads.count == 1)
        // The read is not kept: the next scrape reads again.
        #expect(try await gauges.snapshot { await reads.next() }.pendingCounts[.queued] == 2)
    }

    @Test("a failed read reaches the scrape and the next scrape reads again")
    func failedReadIsNotKept() async throws {
        struct Down: Error {}
        let gauges = StoreGauges<StoreSnapshot>(maxAge: .seconds(3_600))
        await #expect(throws: Down.self) { try await gauges.snapshot { throw Down() } }
        let reads = Reads()
        #expect(try await gauges.snapshot { await reads.next() }.pendingCounts[.queued] == 1)
    }
}
