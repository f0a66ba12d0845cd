public import Foundation

/// `IdempotencyRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryIdempotencyRepository: IdempotencyRepository {
    private struct Record {
        var fingerprint: [UInt8]
        var answer: IdempotentAnswer?
        var createdAt: Date
    }

    private var records: [String: Record] = [:]

    /// An empty repository.
    public init() {}

    /// See `IdempotencyRepository.begin`.
    public func begin(key: String, scope: String, fingerprint: [UInt8], now: Date, ttl: Duration) -> IdempotencyClaim {
        let id = scope + "\n" + key
        if let record = records[id], record.createdAt.storeMillis > now.addingTimeInterval(-(ttl / .seconds(1))).storeMillis {
            guard record.fingerprint == fingerprint else { return .mismatch }
            return record.answer.map(IdempotencyClaim.replay) ?? .inProgress
        }
        records[id] = Record(fingerprint: fingerprint, answer: nil, createdAt: now.storeNormalized)
        return .proceed
    }

    /// See `IdempotencyRepository.finish`.
    public func finish(key: String, scope: String, answer: IdempotentAnswer) {
        records[scope + "\n" + key]?.answer = answer
    }

    /// See `IdempotencyRepository.purge(olderThan:limit:)`.
    public func purge(olderThan date: Date, limit: Int) -> Int {
        let cutoff = date.storeMillis
        let ids = records.filter { $0.value.createdAt.storeMillis < cutoff }
            .sorted { $0.value.createdAt < $1.value.createdAt }.prefix(max(0, limit)).map(\.key)
        for id in ids { records[id] = nil }
        return ids.count
    }

    /// See `IdempotencyRepository.abandon`.
    public func abandon(key: String, scope: String) {
        let id = scope + "\n" + key
        if records[id]?.answer == nil { records[id] = nil }
    }
}
