extension APNSNotification {
    /// Checks what APNs would check without a device registry and returns the rejection APNs
    /// would send, or `nil` when the notification looks deliverable.
    ///
    /// Header problems come before body problems, in this order:
    /// - empty topic: 400 `MissingTopic`
    /// - `apns-id` not a UUID: 400 `BadMessageId`
    /// - negative expiration: 400 `BadExpirationDate`
    /// - collapse id over 64 UTF-8 bytes: 400 `BadCollapseId`
    /// - priority 10 with push type `background`: 400 `BadPriority`
    /// - topic missing the push type's required suffix (voip, complication, fileprovider, location,
    ///   liveactivity, pushtotalk, widgets, controls): 400 `InvalidPushType`
    /// - empty body: 400 `PayloadEmpty`
    /// - body over `pushType.maxPayloadBytes`: 413 `PayloadTooLarge`
    ///
    /// On the suffix rule: APNs itself answers `InvalidPushType` when push type and topic disagree
    /// (e.g. a `.voip` topic sent as `alert`), but for a suffixed push type sent to the bare bundle ID it
    /// usually answers `DeviceTokenNotForTopic`, because it judges the token against the topic. Without
    /// the token registry this check cannot tell those apart, so it reports the cause: `InvalidPushType`.
    /// The reverse direction (a suffixed topic with `alert`) is not checked, as a bundle ID may end in
    /// such a word.
    public func validate() -> APNSRejection? {
        if topic.isEmpty { return reject(.missingTopic) }
        if !apnsIDIsValid { return reject(.badMessageId) }
        if let seconds = expiration.epochSeconds, seconds < 0 { return reject(.badExpirationDate) }
        if let collapseID, collapseID.utf8.count > APNSHeader.maxCollapseIDBytes { return reject(.badCollapseId) }
        if priority == .immediately && pushType == .background { return reject(.badPriority) }
        if let suffix = pushType.topicSuffix, !topic.hasSuffix(suffix) || topic.utf8.count == suffix.utf8.count {
            return reject(.invalidPushType)
        }
        if payload.isEmpty { return reject(.payloadEmpty) }
        if payload.count > pushType.maxPayloadBytes { return reject(.payloadTooLarge) }
        return nil
    }

    private func reject(_ reason: APNSRejectionReason) -> APNSRejection {
        APNSRejection(reason, apnsID: apnsID)
    }
}
