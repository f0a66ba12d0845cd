import APNSCore
import PushStore

extension JSONFields {
    /// A required user id (`^[A-Za-z0-9_.-]{1,64}$`).
    func userID(_ key: String) throws(APIError) -> String {
        let value = try requiredString(key, maxBytes: 64)
        guard APIFieldRules.isUserID(value) else { throw .invalidField(prefix + key, "must be 1-64 characters of A-Z a-z 0-9 _ . -") }
        return value
    }

    /// An optional APNs environment: `"production"` or `"development"`.
    func environment(_ key: String) throws(APIError) -> APNSEnvironment? {
        guard let name = try string(key) else { return nil }
        guard let environment = APNSEnvironment(named: name) else {
            throw .invalidField(prefix + key, "must be \"production\" or \"development\"")
        }
        return environment
    }

    /// An optional apns-topic: a bundle id, with the push type's suffix where one applies.
    func topic(_ key: String) throws(APIError) -> String? {
        guard let value = try string(key, maxBytes: 255) else { return nil }
        guard APIFieldRules.isTopic(value) else {
            throw .invalidField(prefix + key, "must be a bundle id: labels of A-Z a-z 0-9 - joined by dots, at most 255 bytes")
        }
        return value
    }
}
