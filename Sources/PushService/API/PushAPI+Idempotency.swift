import Foundation
import PushHTTP
import PushHTTP1
import PushStore
import PushTLS

extension PushAPI {
    /// How long an `Idempotency-Key` names its request: 24 hours.
    static let idempotencyTTL: Duration = .seconds(24 * 3600)

    /// Runs `route` once per `Idempotency-Key` (when the request has one): a repeat with the same key and
    /// body within 24 h gets the first answer (`Idempotent-Replayed: true`) and creates nothing; the same
    /// key with another body is 422. Keys are scoped to the API key and the operation and kept in the store,
    /// so they survive restarts. Answers worth replaying are 2xx and the final 4xx (400, 404, 413, 422);
    /// after a 409, 429 or 5xx the key is released and a retry runs again.
    func runIdempotent(_ route: APIRoute, _ request: APIRequest) async -> HTTPResponse {
        guard let key = request.http.header("Idempotency-Key") else { return await run(route, request) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return APIError.badRequest("invalid_idempotency_key", "Idempotency-Key must be 1-255 printable ASCII characters without spaces").response
        }
        let scope = "\(request.key?.name ?? "-") \(route.operation)"
        let lockName = scope + "\n" + key
        await idempotencyLocks.lock(lockName)
        defer { Task { await idempotencyLocks.unlock(lockName) } }
        let claim: IdempotencyClaim
        do {
            claim = try await repositories.idempotency.begin(
                key: key, scope: scope, fingerprint: SHA256Digest.hash(request.http.body),
                now: Date(), ttl: Self.idempotencyTTL)
        } catch {
            logger.error("idempotency.begin_failed", [("route", route.operation), ("error", "\(error)")])
            if let error = error as? PushStoreError, case .storageFull = error { return Self.apiError(error).response }
            return APIError(status: 503, code: "store_unavailable", message: "the store did not answer; retry later", retryAfterSeconds: 1)
                .response
        }
        switch claim {
        case .replay(let answer):
            var response = HTTPResponse.jsonBytes(status: answer.status, answer.body)
            response.headers.append(("Idempotent-Replayed", "true"))
            return response
        case .mismatch:
            return APIError(
                status: 422, code: "idempotency_key_reused",
                message: "this Idempotency-Key was used with another request body"
            ).response
        case .inProgress:
            return APIError(
                status: 409, code: "idempotency_in_progress",
                message: "a request with this Idempotency-Key is still running; retry later", retryAfterSeconds: 1
            ).response
        case .proceed:
            let response = await run(route, request)
            let keep = [400, 404, 413, 422].contains(response.status) || (200..<300).contains(response.status)
            do {
                if keep {
                    try await repositories.idempotency.finish(
                        key: key, scope: scope,
                        answer: IdempotentAnswer(status: response.status, body: response.body))
                } else {
                    try await repositories.idempotency.abandon(key: key, scope: scope)
                }
            } catch {
                logger.error("idempotency.finish_failed", [("route", route.operation), ("error", "\(error)")])
                // The claim would hold off every retry (409) until its lease ends: released as soon as the
                // store takes writes again (an answer that did commit is kept: only unanswered claims go).
                abandonLater(key: key, scope: scope)
                // A success is answered once its answer is stored: on PostgreSQL with a synchronous standby,
                // that commit's confirmation also confirms what the request wrote before it (or found stored
                // by an earlier attempt). Unconfirmed, the outcome is unknown: 503, and a retry with the key
                // finds the stored answer or the stored push.
                if (200..<300).contains(response.status), case .unavailable? = error as? PushStoreError {
                    return APIError(status: 503, code: "database_unavailable", message: "\(error)", retryAfterSeconds: 1).response
                }
            }
            return response
        }
    }

    /// Releases an unanswered claim in the background, once a second until the store takes the write, for
    /// at most four minutes (the claim's lease on PostgreSQL is five: after it, a retry takes it over anyway).
    private func abandonLater(key: String, scope: String) {
        let idempotency = repositories.idempotency
        let logger = self.logger
        Task {
            for _ in 0..<240 {
                try? await Task.sleep(for: .seconds(1))
                do {
                    try await idempotency.abandon(key: key, scope: scope)
                    logger.info("idempotency.released", [("scope", scope)])
                    return
                } catch {
                    continue
                }
            }
        }
    }
}
