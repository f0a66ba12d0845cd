import APNSCore
import Foundation

/// `ActivityTokenRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryActivityTokenRepository: ActivityTokenRepository {
    private struct Key: Hashable {
        var token: DeviceToken
        var topic: String
    }

    private var records: [Key: ActivityTokenRecord] = [:]

    /// An empty repository.
    public init() {}

    /// See `ActivityTokenRepository.register`.
    public func register(_ record: ActivityTokenRecord) throws {
        try record.validate()
        var record = record
        record.retiredAt = nil
        records[Key(token: record.token, topic: record.topic)] = record
    }

    /// See `ActivityTokenRepository.pushToStartTokens`.
    public func pushToStartTokens(userID: String, attributesType: String?, now: Date) -> [ActivityTokenRecord] {
        sorted(
            records.values.filter {
                $0.userID == userID && $0.attributesType != nil && (attributesType == nil || $0.attributesType == attributesType)
                    && $0.isActive(at: now)
            })
    }

    /// See `ActivityTokenRepository.updateTokens`.
    public func updateTokens(activityID: String, now: Date) -> [ActivityTokenRecord] {
        sorted(records.values.filter { $0.activityID == activityID && $0.isActive(at: now) })
    }

    /// See `ActivityTokenRepository.retire`.
    public func retire(activityID: String, at date: Date) -> Int {
        var count = 0
        for (key, record) in records where record.activityID == activityID {
            records[key]?.retiredAt = date.storeNormalized
            count += 1
        }
        return count
    }

    /// See `ActivityTokenRepository.tokens`.
    public func tokens(userID: String) -> [ActivityTokenRecord] {
        sorted(records.values.filter { $0.userID == userID })
    }

    private func sorted(_ list: some Sequence<ActivityTokenRecord>) -> [ActivityTokenRecord] {
        list.sorted { ($0.registeredAt, $0.token.hex) < ($1.registeredAt, $1.token.hex) }
    }
}
