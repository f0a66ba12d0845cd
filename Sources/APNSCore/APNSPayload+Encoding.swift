public import JSON

extension APNSPayload {
    /// The whole payload as a JSON value: `{"aps": {…}, <custom keys>}`.
    public var jsonValue: JSONValue {
        // Only the fields that are set are stored: assigning nil to a key would still hash and look it up.
        var aps: [String: JSONValue] = [:]
        if let alert { aps["alert"] = alert.jsonValue }
        if let badge { aps["badge"] = .int(Int64(badge)) }
        if let sound { aps["sound"] = sound.jsonValue }
        if contentAvailable { aps["content-available"] = .int(1) }
        if mutableContent { aps["mutable-content"] = .int(1) }
        if let category { aps["category"] = .string(category) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let targetContentID { aps["target-content-id"] = .string(targetContentID) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        if let relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        if let filterCriteria { aps["filter-criteria"] = .string(filterCriteria) }
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
