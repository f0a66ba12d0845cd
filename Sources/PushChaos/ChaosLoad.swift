import APNSCore
import Foundation
import JSON

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts batches of fresh, unique device tokens to `POST /v1/pushes` until enough are acknowledged,
/// riding over push-server's deaths: a post cut off by a kill counts as unanswered and the poster waits
/// for the restarted server.
final class ChaosLoad: Sendable {
    /// What the posters achieved.
    struct Outcome: Sendable {
        var acknowledged = 0
        var pushIDs: [String] = []
        /// Tokens of posts that got no 2xx answer (their rows may or may not exist).
        var unansweredTokens: Set<String> = []
        var unansweredPosts = 0
        var problems: [String] = []
    }

    private actor Ledger {
        var outcome = Outcome()
        private var claimed = 0
        private var nextBatch = 0
        private let target: Int
        private let batchSize: Int

        init(target: Int, batchSize: Int) {
            self.target = target
            self.batchSize = batchSize
        }

        /// The next batch number, or nil when acknowledged plus in-flight tokens reach the target.
        func claim() -> Int? {
            guard outcome.acknowledged + claimed < target else { return nil }
            claimed += batchSize
            defer { nextBatch += 1 }
            return nextBatch
        }

        private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        func acknowledge(pushID: String, count: Int) {
            claimed -= batchSize
            outcome.acknowledged += count
            outcome.pushIDs.append(pushID)
            let acknowledged = outcome.acknowledged
            for waiter in waiters where waiter.count <= acknowledged { waiter.continuation.resume() }
            waiters.removeAll { $0.count <= acknowledged }
        }

        func waitForAcknowledged(_ count: Int) async {
            guard outcome.acknowledged < count else { return }
            await withCheckedContinuation { waiters.append((count, $0)) }
        }

        func unanswered(_ tokens: [String], problem: String?) {
            claimed -= batchSize
            outcome.unansweredPosts += 1
            outcome.unansweredTokens.formUnion(tokens)
            if let problem { note(problem) }
        }

        func note(_ problem: String) {
            if outcome.problems.count < 20 { outcome.problems.append(problem) }
        }
    }

    private let plan: ChaosPlan
    private let target: ChaosTarget
    private let apiKey: String
    private let session: URLSession
    private let nonce = UInt64.random(in: 0...UInt64.max)
    private let ledger: Ledger

    init(plan: ChaosPlan, target: ChaosTarget, apiKey: String) {
        self.plan = plan
        self.target = target
        self.apiKey = apiKey
        ledger = Ledger(target: plan.pushes, batchSize: plan.batchSize)
        let configuration = URLSessionConfiguration.ephemeral
        // Through the balancer a post can stall behind a killed instance (seen under load, cause not yet
        // known): give up on it after 20 s, count it unanswered and post again.
        configuration.timeoutIntervalForRequest = plan.instances > 1 ? 20 : 120
        configuration.httpMaximumConnectionsPerHost = plan.concurrency
        session = URLSession(configuration: configuration)
    }

    /// Returns once the API has acknowledged `count` notifications (for a kill in the middle of the posting).
    func waitForAcknowledged(_ count: Int) async {
        await ledger.waitForAcknowledged(count)
    }

    /// Runs `plan.concurrency` posters until `plan.pushes` notifications are acknowledged.
    func run() async -> Outcome {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<plan.concurrency {
                group.addTask { await self.poster(self.ledger) }
            }
        }
        return await ledger.outcome
    }

    private func poster(_ ledger: Ledger) async {
        var failuresWithoutKill = 0
        var lastError = "refused"
        while let batch = await ledger.claim() {
            let tokens = (0..<plan.batchSize).map { token(batch: batch, index: $0) }
            let (port, generation) = await target.current()
            switch await post(tokens, port: port) {
            case .acknowledged(let pushID):
                failuresWithoutKill = 0
                await ledger.acknowledge(pushID: pushID, count: tokens.count)
            case .refused(let status, _) where plan.instances > 1 && (502...504).contains(status):
                // The balancer's answer for a post the killed instance took: unanswered, tried again.
                await ledger.unanswered(tokens, problem: nil)
                failuresWithoutKill += 1
                lastError = "balancer answered \(status)"
                try? await Task.sleep(for: .milliseconds(50))
            case .refused(let status, let body):
                // A refusal is a problem in itself (the verdict fails on any noted problem).
                await ledger.unanswered(tokens, problem: "POST /v1/pushes answered \(status): \(body)")
                failuresWithoutKill += 1
            case .failed(let error) where plan.instances > 1:
                await ledger.unanswered(tokens, problem: nil)
                failuresWithoutKill += 1
                lastError = error
                try? await Task.sleep(for: .milliseconds(50))
            case .failed(let error):
                await ledger.unanswered(tokens, problem: nil)
                await target.waitForNewer(than: generation)
                failuresWithoutKill += 1
                lastError = error
            }
            if failuresWithoutKill > 50 {
                // Giving up leaves pushes unacknowledged and notes a problem: either fails the run.
                await ledger.note("a poster gave up after \(failuresWithoutKill) failed posts in a row: \(lastError)")
                return
            }
        }
    }

    private enum PostResult {
        case acknowledged(pushID: String)
        case refused(status: Int, body: String)
        case failed(String)
    }

    private func post(_ tokens: [String], port: Int) async -> PostResult {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/pushes")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body: JSONValue = [
            "tokens": .array(tokens.map { .string($0) }), "alert": "chaos",
            "environment": "development",
        ]
        request.httpBody = Data(body.serialized())
        do {
            let (data, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status),
                let pushID = (try? JSONValue.parse(Array(data)))?["push_id"]?.stringValue
            else {
                return .refused(status: status, body: String(decoding: data.prefix(200), as: UTF8.self))
            }
            return .acknowledged(pushID: pushID)
        } catch {
            return .failed("\(error)")
        }
    }

    /// A valid 64-hex-digit token no other batch or run uses.
    private func token(batch: Int, index: Int) -> String {
        let head = String(nonce, radix: 16)
        let tail = String(batch, radix: 16) + "f" + String(index, radix: 16)
        let pad = String(repeating: "0", count: 64 - head.count - tail.count)
        return head + pad + tail
    }
}
