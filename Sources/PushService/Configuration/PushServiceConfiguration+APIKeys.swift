import APNSCore
import JSON

extension PushServiceConfiguration {
    /// Reads `api_keys`: each entry is a secret string (`"<key>"` or `"sha256:<hex>"`, every scope, named
    /// `key-N`) or an object `{"name", "key" | "sha256", "scopes", "rate_limit"}`.
    static func apiKeys(json entries: [JSONValue]) throws(APIError) -> [APIKey] {
        var keys: [APIKey] = []
        for (index, entry) in entries.enumerated() {
            let field = "api_keys[\(index)]"
            do {
                if let secret = entry.stringValue {
                    keys.append(try APIKey(name: "key-\(index + 1)", secret: secret))
                } else {
                    keys.append(try apiKey(JSONFields(entry, prefix: field + "."), index: index))
                }
            } catch let error as ConfigurationError {
                throw .invalidField(field, error.message)
            } catch let error as APIError {
                throw error
            } catch {
                throw .invalidField(field, "\(error)")
            }
        }
        return keys
    }

    /// Key names and secrets are unique, and every key has a scope.
    static func checkUnique(_ keys: [APIKey]) throws(ConfigurationError) {
        var names = Set<String>()
        var digests = Set<[UInt8]>()
        for key in keys {
            guard names.insert(key.name).inserted else { throw ConfigurationError("two API keys are named \(key.name)") }
            guard digests.insert(key.digest).inserted else {
                throw ConfigurationError("API key \(key.name) has the same secret as another key")
            }
            guard !key.scopes.isEmpty else { throw ConfigurationError("API key \(key.name) has no scopes") }
        }
    }

    private static func apiKey(_ object: JSONFields, index: Int) throws -> APIKey {
        try object.checkKnown(["name", "key", "sha256", "scopes", "rate_limit"])
        let name = try object.string("name", maxBytes: 64) ?? "key-\(index + 1)"
        let secret: String
        switch (try object.string("key"), try object.string("sha256", maxBytes: 64)) {
        case (let key?, nil): secret = key
        case (nil, let hex?): secret = "sha256:" + hex
        default: throw APIError.invalidField(object.prefix + "key", "give exactly one of key and sha256")
        }
        var scopes = Set(APIScope.allCases)
        if let list = try object.array("scopes") {
            scopes = []
            for item in list {
                guard let text = item.stringValue, let scope = APIScope(rawValue: text) else {
                    throw APIError.invalidField(
                        object.prefix + "scopes",
                        "each scope is one of \(APIScope.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                scopes.insert(scope)
            }
        }
        var limit: APIRateLimit?
        if let section = try object.object("rate_limit") {
            try section.checkKnown(["requests_per_s", "request_burst", "notifications_per_s", "notification_burst"])
            limit = APIRateLimit(
                requestsPerSecond: try section.positiveDouble("requests_per_s"),
                requestBurst: try section.positiveDouble("request_burst"),
                notificationsPerSecond: try section.positiveDouble("notifications_per_s"),
                notificationBurst: try section.positiveDouble("notification_burst"))
        }
        return try APIKey(name: name, secret: secret, scopes: scopes, rateLimit: limit)
    }
}
