public import JSON

extension APNSPayload {
    /// The whole payload as a JSON value: `{"aps": {…}, <custom keys>}`.
    public var jsonValue: JSONValue {
        var aps: [String: JSONValue] = [:]
        aps["alert"] = alert?.jsonValue
        aps["badge"] = badge.map { .int(Int64($0)) }
        aps["sound"] = sound?.jsonValue
        if contentAvailable { aps["content-available"] = .int(1) }
        if mutableContent { aps["mutable-content"] = .int(1) }
        aps["category"] = category.map(JSONValue.string)
        aps["thread-id"] = threadID.map(JSONValue.string)
        aps["target-content-id"] = targetContentID.map(JSONValue.string)
        aps["interruption-level"] = interruptionLevel.map { .string($0.rawValue) }
        aps["relevance-score"] = relevanceScore.map(JSONValue.double)
        aps["filter-criteria"] = filterCriteria.map(JSONValue.string)
        if contentChanged { aps["content-changed"] = .bool(true) }
        liveActivity?.add(to: &aps)

        var root = custom
        root["aps"] = .object(aps)
        return .object(root)
    }

    /// The payload as compact UTF-8 JSON with sorted keys: the same payload always gives the same bytes.
    public func encoded() -> [UInt8] {
        jsonValue.serialized()
    }

    /// The size of `encoded()` in bytes, to compare with `PushType.maxPayloadBytes`.
    public var byteCount: Int {
        encoded().count
    }
}
