import APNSCore
import Foundation
import ProfileDrop
import PushStore
import TestSupport
import Testing

/// Each test runs on every store kind push-server can use (`DropStoreKind.allCases`), not only on the
/// in-memory twins: the races these tests provoke are settled by the store.
@Suite("MatchService under concurrency (the app team's 1,000-connects test, at service level)")
struct MatchServiceConcurrencyTests {
    @Test(
        "1,000 users report X at once while X reports one of them: one pair, one push per device, 999 busy",
        arguments: DropStoreKind.allCases, [UInt64(1), 2])
    func thousandTowardOne(store: DropStoreKind, seed: UInt64) async throws {
        let f = try await DropFixture(store: store)
        let x = try await f.addUser(0)
        var others: [String] = []
        for number in 1...1_000 { others.append(try await f.addUser(number)) }
        var random = SeededGenerator(seed: seed)
        let xTarget = try #require(others.randomElement(using: &random))

        var results: [String: DropReport] = [:]
        var xResult: DropReport?
        try await withThrowingTaskGroup(of: (String, DropReport).self) { group in
            for user in others.shuffled(using: &random) {
                group.addTask { (user, try await f.report(user, x)) }
                if user == xTarget { group.addTask { (x, try await f.report(x, xTarget)) } }
            }
            for try await (user, result) in group {
                if user == x { xResult = result } else { results[user] = result }
            }
        }
        #expect(results.count == 1_000)
        let winners = results.filter { !$0.value.isBusy }
        try #require(winners.count == 1)
        let winner = try #require(winners.first?.key)
        var calls = 1_001
        if try #require(xResult).isBusy {  // someone else got to X first: X now confirms the one it is paired with
            #expect(try await f.service.status(userID: x)?.initiatorID == winner)
            #expect(try await f.report(x, winner).isMatched)
            calls += 1
        }
        let drop = try #require(try await f.service.status(userID: x))
        #expect(drop.state == .matched && Set([drop.initiatorID, drop.peerID]) == [x, winner])

        let pushes = try await f.queuedPushes()
        let expectedTokens = [0, 1].flatMap { device in
            [
                DropFixture.token(user: 0, device: device),
                DropFixture.token(user: Int(winner.dropFirst())!, device: device),
            ]
        }
        #expect(pushes.compactMap(\.target.deviceToken?.hex).sorted() == expectedTokens.map(\.hex).sorted())  // exactly one per device on each side
        #expect(pushes.allSatisfy { $0.collapseID == drop.id && $0.category == "MATE_REQUEST" })
        #expect(try await f.mateRequests.requests(forDrop: drop.id).count == 2)

        let metrics = await f.service.metrics
        #expect(metrics.reportsTotal == calls)  // every attempt counted
        #expect(metrics.reports[.busy] == calls - 2)
        #expect(metrics.reports[.pending] == 1 && metrics.reports[.matched] == 1 && metrics.matches == 1)
    }

    @Test(
        "1,000 concurrent duplicate reports of one pair: one drop, one mate request per side, one push per device",
        arguments: DropStoreKind.allCases)
    func thousandDuplicates(store: DropStoreKind) async throws {
        let f = try await DropFixture(store: store)
        let a = try await f.addUser(1)
        let b = try await f.addUser(2)
        let results = try await withThrowingTaskGroup(of: DropReport.self) { group in
            for index in 0..<1_000 {
                group.addTask { index % 2 == 0 ? try await f.report(a, b) : try await f.report(b, a) }
            }
            return try await group.reduce(into: [DropReport]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.isPending || $0.isMatched })
        #expect(Set(results.compactMap(\.drop?.id)).count == 1)
        let matched = results.filter(\.isMatched)
        #expect(!matched.isEmpty)
        #expect(
            Set(
                matched.map { result -> [String] in
                    guard case .matched(_, let requests) = result else { return [] }
                    return requests.map(\.id)
                }
            ).count == 1)
        let dropID = try #require(results.first?.drop?.id)
        let requests = try await f.mateRequests.requests(forDrop: dropID)
        #expect(requests.map(\.recipientID).sorted() == [a, b])
        let pushes = try await f.queuedPushes()
        #expect(pushes.count == 4 && Set(pushes.map(\.target)).count == 4)
        let metrics = await f.service.metrics
        #expect(metrics.matches == 1 && metrics.reportsTotal == 1_000)
        #expect(try await f.drops.pending().isEmpty)
    }

    @Test(
        "cancel racing match, 1,000 seeded rounds: never an acknowledged cancel and a push for the same drop",
        arguments: DropStoreKind.allCases)
    func cancelRacesMatch(store: DropStoreKind) async throws {
        let f = try await DropFixture(store: store)
        var random = SeededGenerator(seed: 42)
        var cancelled: Set<String> = []
        var matchedIDs: Set<String> = []
        for round in 0..<1_000 {
            let a = try await f.addUser(2 * round, devices: 1)
            let b = try await f.addUser(2 * round + 1, devices: 1)
            let drop = try #require(try await f.report(a, b).drop)
            let canceller = Bool.random(using: &random) ? a : b
            let mode = Int.random(in: 0..<4, using: &random)  // 0: cancel first, 1: match first, else concurrent
            let yields = (Int.random(in: 0..<3, using: &random), Int.random(in: 0..<3, using: &random))
            let cancel: @Sendable () async throws -> CancelResult = {
                for _ in 0..<yields.0 { await Task.yield() }
                return try await f.service.cancel(userID: canceller)
            }
            let match: @Sendable () async throws -> DropReport = {
                for _ in 0..<yields.1 { await Task.yield() }
                return try await f.report(b, a)
            }
            let outcome: (CancelResult, DropReport)
            switch mode {
            case 0: outcome = (try await cancel(), try await match())
            case 1:
                let report = try await match()
                outcome = (try await cancel(), report)
            default:
                async let c = cancel()
                async let m = match()
                outcome = try await (c, m)
            }
            switch outcome {
            case (.cancelled(let gone), let report):
                #expect(gone.id == drop.id && gone.state == .cancelled)
                #expect(report.drop?.id != drop.id)  // B's report started a fresh drop instead
                cancelled.insert(drop.id)
            case (.alreadyMatched(let done), .matched(let matchedDrop, _)):
                #expect(done == matchedDrop && done.id == drop.id)
                matchedIDs.insert(drop.id)
            default:
                Issue.record("round \(round): inconsistent outcome \(outcome)")
            }
        }
        #expect(cancelled.count + matchedIDs.count == 1_000)
        #expect(!cancelled.isEmpty && !matchedIDs.isEmpty)
        let pushes = try await f.queuedPushes()
        #expect(pushes.filter { cancelled.contains($0.collapseID ?? "") }.isEmpty)
        #expect(Set(pushes.compactMap(\.collapseID)) == matchedIDs)
        #expect(pushes.count == 2 * matchedIDs.count)
        let metrics = await f.service.metrics
        #expect(metrics.cancels == cancelled.count && metrics.matches == matchedIDs.count)
    }
}
