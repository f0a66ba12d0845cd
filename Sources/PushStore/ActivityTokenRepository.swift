public import APNSCore
public import Foundation

/// What an ActivityKit push token is for (Apple, "Starting and updating Live Activities with ActivityKit
/// push notifications"): a push-to-start token starts activities of one `ActivityAttributes` type (iOS
/// 17.2+); an update token belongs to one running activity and ends with it.
public enum ActivityTokenKind: Sendable, Hashable {
    /// `pushToStartTokenUpdates`: starts new activities of the attributes type named.
    case pushToStart(attributesType: String)
    /// `pushTokenUpdates`: updates and ends the one activity named.
    case update(activityID: String)

    /// The stored name of the kind.
    public var name: String {
        switch self {
        case .pushToStart: "push_to_start"
        case .update: "live_activity"
        }
    }
}

/// One ActivityKit push token of a user's device.
public struct ActivityTokenRecord: Sendable, Equatable {
    /// The token (hex), as ActivityKit gave it.
    public var token: DeviceToken
    /// The app's bundle ID (notifications go to `<bundle ID>.push-type.liveactivity`).
    public var topic: String
    /// The owner.
    public var userID: String
    /// The APNs environment of the device.
    public var environment: APNSEnvironment
    /// Push-to-start for an attributes type, or update token of one activity.
    public var kind: ActivityTokenKind
    /// When it was registered.
    public var registeredAt: Date
    /// From when it is no longer used (an update token after its activity ended), or nil.
    public var retiredAt: Date?

    /// A record from its parts.
    public init(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment, kind: ActivityTokenKind,
        registeredAt: Date, retiredAt: Date? = nil
    ) {
        self.token = token
        self.topic = topic
        self.userID = userID
        self.environment = environment
        self.kind = kind
        self.registeredAt = registeredAt.storeNormalized
        self.retiredAt = retiredAt?.storeNormalized
    }

    /// Whether the token is still used at `now`.
    public func isActive(at now: Date) -> Bool {
        guard let retiredAt else { return true }
        return retiredAt > now
    }

    /// The attributes type of a push-to-start token.
    public var attributesType: String? {
        if case .pushToStart(let type) = kind { return type }
        return nil
    }

    /// The activity of an update token.
    public var activityID: String? {
        if case .update(let id) = kind { return id }
        return nil
    }

    /// Throws `PushStoreError` unless the record can be stored.
    package func validate() throws(PushStoreError) {
        try StoreValidation.required(topic, field: "topic", max: 255)
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment.name)
        switch kind {
        case .pushToStart(let type): try StoreValidation.required(type, field: "attributes_type", max: 512)
        case .update(let id): try StoreValidation.required(id, field: "activity_id", max: 128)
        }
    }

    /// The kind from its stored columns.
    package static func kind(name: String, attributesType: String?, activityID: String?) -> ActivityTokenKind {
        name == "push_to_start" ? .pushToStart(attributesType: attributesType ?? "") : .update(activityID: activityID ?? "")
    }
}

/// ActivityKit push tokens: push-to-start tokens per attributes type, update tokens per activity.
public protocol ActivityTokenRepository: Sendable {
    /// Registers (or re-registers, un-retiring) a token; a token is stored once per topic.
    func register(_ record: ActivityTokenRecord) async throws
    /// The user's push-to-start tokens for `attributesType` (every type when nil) active at `now`.
    func pushToStartTokens(userID: String, attributesType: String?, now: Date) async throws -> [ActivityTokenRecord]
    /// The update tokens of `activityID` active at `now`.
    func updateTokens(activityID: String, now: Date) async throws -> [ActivityTokenRecord]
    /// Retires the update tokens of `activityID` from `date` on (kept until then); returns how many.
    @discardableResult
    func retire(activityID: String, at date: Date) async throws -> Int
    /// Every token of the user, retired ones included, oldest first.
    func tokens(userID: String) async throws -> [ActivityTokenRecord]
    /// Removes every registration of `token` (each topic's); returns how many there were.
    func remove(token: DeviceToken) async throws -> Int
    /// Takes one priority-10 update from `activityID`'s budget at `now`: true (and counted) when fewer than
    /// `limit` were taken in the `window` before `now`, false (and nothing counted) otherwise.
    /// Instances sharing the store take from one budget: two takes of one activity never both see the
    /// last unit free.
    func takePriorityBudget(activityID: String, limit: Int, window: Duration, now: Date) async throws -> Bool
    /// Deletes up to `limit` tokens retired before `date` (oldest retirement first); returns how many.
    func purgeRetired(olderThan date: Date, limit: Int) async throws -> Int
    /// Deletes up to `limit` budget entries taken before `date` (oldest first); returns how many.
    func purgeBudget(olderThan date: Date, limit: Int) async throws -> Int
}
