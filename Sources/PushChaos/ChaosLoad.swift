import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushIO

/// Posts batches of fresh, unique device tokens to `POST /v1/pushes` until enough are acknowledged,
/// riding over push-server's deaths: a post cut off by a kill counts as unanswered and the poster waits
/// for the restarted server.
///
/// Each post is one request on a connection of its own (`PushHTTP1.HTTPClient`, `Connection: close`), written
/// whole: headers and body. Foundation's `URLSession` on Linux was used before and stalled after kills
/// behind the balancer: when the balancer closed a kept-alive connection just as a post went out on it,
/// libcurl sent the post again on a new connection, but Foundation cannot rewind a `Data` body and reports
/// the rewind as done, so only the headers went out again (`Content-Length` 33,556, no body) and the
/// instance waited for a body that never came (seen in a packet capture of `make chaos-cluster`).
final class ChaosLoad: Sendable {
    /// What the posters achieved.
    struct Outcome: Sendable {
        var acknowledged = 0
        var pushIDs: [String] = []
        /// Tokens of posts that got no 2xx answer (their rows may or may not exist).
        var unansweredTokens: Set<String> = []
        var unansweredPosts = 0
        var problems: [String] = []
        /// The longest a post took to be answered or to fail, in seconds.
        var slowestPost = 0.0
    }

    /// Seconds of silence after which a post counts as stalled: a problem, which fails the run. A post
    /// is answered in well under a second, or fails at once when its instance dies.
    static let stallTimeout: Duration = .seconds(60)

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

        func took(_ seconds: Double) {
            outcome.slowestPost = max(outcome.slowestPost, seconds)
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
    private let loop = EventLoop(name: "chaos-load")
    private let client: HTTPClient
    private let nonce = UInt64.random(in: 0...UInt64.max)
    private let ledger: Ledger

    init(plan: ChaosPlan, target: ChaosTarget, apiKey: String) {
        self.plan = plan
        self.target = target
        self.apiKey = apiKey
        ledger = Ledger(target: plan.pushes, batchSize: plan.batchSize)
        // An answer lists every notification of the push: room for the largest batch.
        client = HTTPClient(loop: loop, tls: nil, maxResponseBytes: 64 * 1_024 * 1_024)
    }

    deinit { loop.shutdown() }

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
            let started = ContinuousClock.now
            let result = await post(tokens, port: port)
            let elapsed = ContinuousClock.now - started
            await ledger.took(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            switch result {
            case .acknowledged(let pushID):
                failuresWithoutKill = 0
                await ledger.acknowledge(pushID: pushID, count: tokens.count)
            case .refused(let status, _, .balancerRetry):
                // The balancer's answer for a post the killed instance took: unanswered, tried again.
                await ledger.unanswered(tokens, problem: nil)
                failuresWithoutKill += 1
                lastError = "balancer answered \(status)"
                try? await Task.sleep(for: .milliseconds(50))
            case .refused(let status, let body, _):
                // A refusal is a problem in itself (the verdict fails on any noted problem): the service's own
                // answers too, its 503 database_unavailable among them.
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
        case refused(status: Int, body: String, kind: Refusal)
        case failed(String)
    }

    /// What a post's non-2xx answer means.
    enum Refusal: Equatable {
        /// The balancer's own 502, 503 or 504 for a post whose instance died (or was down): the post is
        /// unanswered and goes again.
        case balancerRetry
        /// An answer that fails the run: every answer of the service itself (its errors are JSON, as
        /// `{"error":{"code":"database_unavailable",…}}`), and any answer of a single instance.
        case refusal
    }

    /// Sorts a non-2xx answer: only a 502–504 that is not the service's JSON error, behind a balancer, is
    /// the balancer's retry.
    static func classify(status: Int, body: [UInt8], balanced: Bool) -> Refusal {
        guard balanced, (502...504).contains(status) else { return .refusal }
        if let answer = try? JSONValue.parse(body), answer["error"] != nil { return .refusal }
        return .balancerRetry
    }

    private func post(_ tokens: [String], port: Int) async -> PostResult {
        let body: JSONValue = [
            "tokens": .array(tokens.map { .string($0) }), "alert": "chaos",
            "environment": "development",
        ]
        do {
            let response = try await client.post(
                url: "http://127.0.0.1:\(port)/v1/pushes",
                headers: [("Authorization", "Bearer \(apiKey)"), ("Content-Type", "application/json")],
                body: body.serialized(), timeout: Self.stallTimeout)
            guard (200..<300).contains(response.status),
                let pushID = (try? JSONValue.parse(response.body))?["push_id"]?.stringValue
            else {
                return .refused(
                    status: response.status, body: String(decoding: response.body.prefix(200), as: UTF8.self),
                    kind: Self.classify(status: response.status, body: response.body, balanced: plan.instances > 1))
            }
            return .acknowledged(pushID: pushID)
        } catch let error as IOError where error.kind == .timeout {
            await ledger.note("a post got no answer in \(Self.stallTimeout.components.seconds) s (stalled)")
            return .failed("\(error)")
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
