public import APNSCore
public import Foundation

/// `ActivityTokenRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryActivityTokenRepository: ActivityTokenRepository {
    private var records: [TokenTopicKey: ActivityTokenRecord] = [:]
    /// Per activity, when each priority-10 update was taken from its budget (ms since 1970, oldest first).
    private var budget: [String: [Int64]] = [:]

    /// An empty repository.
    public init() {}

    /// See `ActivityTokenRepository.register`.
    public func register(_ record: ActivityTokenRecord) throws {
        try record.validate()
        var record = record
        record.retiredAt = nil
        records[TokenTopicKey(token: record.token, topic: record.topic)] = record
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

    /// See `ActivityTokenRepository.remove(token:)`.
    public func remove(token: DeviceToken) -> Int {
        let keys = records.filter { $0.value.token == token }.map(\.key)
        for key in keys { records[key] = nil }
        return keys.count
    }

    /// See `ActivityTokenRepository.tokens`.
    public func tokens(userID: String) -> [ActivityTokenRecord] {
        sorted(records.values.filter { $0.userID == userID })
    }

    /// See `ActivityTokenRepository.takePriorityBudget`.
    public func takePriorityBudget(activityID: String, limit: Int, window: Duration, now: Date) -> Bool {
        let now = now.storeMillis
        let start = now - Int64((window / .milliseconds(1)).rounded())
        let taken = budget[activityID, default: []].filter { $0 > start }.count
        guard taken < limit else { return false }
        budget[activityID, default: []].append(now)
        return true
    }

    /// See `ActivityTokenRepository.purgeRetired`.
    public func purgeRetired(olderThan date: Date, limit: Int) -> Int {
        let cutoff = date.storeMillis
        let keys = records.compactMap { key, record in record.retiredAt.map { (key, $0.storeMillis) } }
            .filter { $0.1 < cutoff }.sorted { $0.1 < $1.1 }.prefix(max(0, limit)).map(\.0)
        for key in keys { records[key] = nil }
        return keys.count
    }

    /// See `ActivityTokenRepository.purgeBudget`.
    public func purgeBudget(olderThan date: Date, limit: Int) -> Int {
        let cutoff = date.storeMillis
        let entries = budget.flatMap { activity, times in times.filter { $0 < cutoff }.map { (activity, $0) } }
            .sorted { $0.1 < $1.1 }.prefix(max(0, limit))
        for (activity, time) in entries {
            guard var times = budget[activity], let index = times.firstIndex(of: time) else { continue }
            times.remove(at: index)
            budget[activity] = times.isEmpty ? nil : times
        }
        return entries.count
    }

    private func sorted(_ list: some Sequence<ActivityTokenRecord>) -> [ActivityTokenRecord] {
        list.sorted { ($0.registeredAt, $0.token.hex) < ($1.registeredAt, $1.token.hex) }
    }
}
