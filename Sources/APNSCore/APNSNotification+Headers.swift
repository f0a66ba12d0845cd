extension APNSNotification {
    /// The request headers, in this order: `apns-topic`, `apns-push-type`, then `apns-priority`,
    /// `apns-expiration`, `apns-collapse-id`, `apns-id` and `authorization` when set.
    ///
    /// `authorization` is the provider JWT; `bearer ` is prepended unless it is already there
    /// (pass the ready `bearer <jwt>` string, cached per token, to skip that concatenation).
    /// Pseudo-headers (`:method`, `:path`, …) are the HTTP/2 layer's job; use `path`.
    public func headerFields(authorization: String?) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(7)
        fields.append((APNSHeader.topic, topic))
        fields.append((APNSHeader.pushType, pushType.rawValue))
        if let priority { fields.append((APNSHeader.priority, priority.headerValue)) }
        if let value = expiration.headerValue { fields.append((APNSHeader.expiration, value)) }
        if let collapseID { fields.append((APNSHeader.collapseID, collapseID)) }
        if let apnsID { fields.append((APNSHeader.id, apnsID)) }
        if let authorization {
            let value =
                authorization.hasPrefix(APNSHeader.bearerPrefix)
                ? authorization : APNSHeader.bearerPrefix + authorization
            fields.append((APNSHeader.authorization, value))
        }
        return fields
    }
}
