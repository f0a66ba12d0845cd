public import Foundation

/// The answer first given to a request made with an `Idempotency-Key`, replayed to its repeats.
public struct IdempotentAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The JSON body.
    public var body: [UInt8]

    /// An answer.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// What `IdempotencyRepository.begin` found for a key.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key is new (or its record expired): the caller runs the request, then `finish`es or `abandon`s.
    case proceed
    /// The key was used with the same request: here is its answer.
    case replay(IdempotentAnswer)
    /// The key was used with another request body.
    case mismatch
    /// A request with this key is still running (in another process: this one serializes its own).
    case inProgress
}

/// Stored `Idempotency-Key`s: a key, scoped to a client and an operation, names one request and its answer
/// for `ttl`; the records survive restarts.
public protocol IdempotencyRepository: Sendable {
    /// Claims `key` in `scope` for a request whose body hashes to `fingerprint`, or says why not.
    func begin(key: String, scope: String, fingerprint: [UInt8], now: Date, ttl: Duration) async throws -> IdempotencyClaim
    /// Records the answer of the request that claimed `key`.
    func finish(key: String, scope: String, answer: IdempotentAnswer) async throws
    /// Forgets a claim whose request ended without an answer worth replaying (a retry runs again).
    func abandon(key: String, scope: String) async throws
    /// Deletes up to `limit` records created before `date`; returns how many.
    func purge(olderThan date: Date, limit: Int) async throws -> Int
}
